//! What `verify` leaves running or on disk, and how it goes away.
//!
//! - Each run's program starts in a process group of its own ([`Group`]); the
//!   whole group is killed (SIGKILL) when the run ends, normally or at its time
//!   limit, so anything the program started dies with it.
//! - Temporary folders ([`Folder`]) have a random name, owner-only permissions
//!   (0700), are made new (never an existing folder), and are removed when the
//!   run ends. Files in them are made with [`create_new`] (`O_EXCL`: a symlink
//!   in their place is never followed).
//! - On SIGINT, SIGTERM or SIGHUP ([`watch_signals`]) every running group is
//!   killed, every folder removed, and the process exits with 128 + the
//!   signal's number ([`signal_exit_code`]).

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::{Mutex, MutexGuard, OnceLock, PoisonError};

/// What is alive now: the process groups of running programs and the
/// temporary folders. A signal cleans them up while holding the lock, so none
/// is added or dropped halfway.
struct Live {
    /// Process group ids (each the pid of its leader, not yet reaped).
    groups: Vec<libc::pid_t>,
    dirs: Vec<PathBuf>,
    /// A signal arrived: start nothing more.
    stopping: bool,
}

static LIVE: Mutex<Live> = Mutex::new(Live {
    groups: Vec::new(),
    dirs: Vec::new(),
    stopping: false,
});

fn live() -> MutexGuard<'static, Live> {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn stopping() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "verify is stopping (interrupted)")
}

/// The exit code after `signal`: 128 + its number (130 for SIGINT, 143 for
/// SIGTERM, 129 for SIGHUP), as a shell reports a process the signal ended.
pub fn signal_exit_code(signal: i32) -> i32 {
    128 + signal
}

/// From now on, SIGINT (Ctrl-C), SIGTERM and SIGHUP kill every running
/// program's group, remove every temporary folder, and exit with
/// [`signal_exit_code`]. A signal the process was started ignoring (`nohup`
/// ignores SIGHUP) stays ignored. Installed once per process; later calls do
/// nothing.
pub fn watch_signals() {
    static WATCHING: OnceLock<()> = OnceLock::new();
    WATCHING.get_or_init(|| {
        let watched: Vec<i32> = [SIGINT, SIGTERM, SIGHUP].into_iter().filter(|&s| !ignored(s)).collect();
        let spawned = signal_hook::iterator::Signals::new(watched).and_then(|mut signals| {
            std::thread::Builder::new().name("verify-signals".into()).spawn(move || {
                if let Some(signal) = signals.forever().next() {
                    stop(signal);
                }
            })
        });
        if let Err(e) = spawned {
            let _ = writeln!(
                io::stderr(),
                "warning: cannot watch for Ctrl-C ({e}): an interrupted `verify` may leave `node` processes and temporary folders behind"
            );
        }
    });
}

/// Whether `signal` is ignored (SIG_IGN), as a process started by `nohup`, or
/// in the background by a shell, finds SIGHUP or SIGINT.
fn ignored(signal: i32) -> bool {
    // SAFETY: an all-zero sigaction is valid to be overwritten.
    let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
    // SAFETY: a null new action only reads the current one into `old`.
    let r = unsafe { libc::sigaction(signal, std::ptr::null(), &mut old) };
    r == 0 && old.sa_sigaction == libc::SIG_IGN
}

/// Cleans up after `signal` and exits.
fn stop(signal: i32) -> ! {
    let mut live = live();
    live.stopping = true;
    let groups = live.groups.len();
    for &group in &live.groups {
        kill_group(group);
    }
    // Reap the leaders, so none is left when the process exits.
    for &group in &live.groups {
        // SAFETY: waitpid(2) on our own child, with no status pointer.
        unsafe {
            libc::waitpid(group, std::ptr::null_mut(), 0);
        }
    }
    for dir in &live.dirs {
        let _ = std::fs::remove_dir_all(dir);
    }
    let name = match signal {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    };
    // Writing may fail (a hung-up terminal): exit all the same.
    let newline = if io::stderr().is_terminal() { "\n" } else { "" }; // below the progress bar
    let _ = writeln!(
        io::stderr(),
        "{newline}verify: stopped by {name}: killed {}, removed the temporary folders",
        crate::term::counted(groups as u64, "running program")
    );
    std::process::exit(signal_exit_code(signal))
}

/// SIGKILL to every process in the group `group`.
fn kill_group(group: libc::pid_t) {
    // SAFETY: kill(2) takes plain integers; a negative pid names a process group.
    // `group` is the pid of a child we have not reaped, so it cannot name
    // another process's group.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}

/// Creates the file at `path` for writing, failing if anything (a file, a
/// symlink) is already there: `O_CREAT | O_EXCL`, so a planted symlink is
/// never followed.
///
/// # Errors
/// When something is at `path` or it cannot be created.
pub fn create_new(path: &Path) -> io::Result<File> {
    File::options().write(true).create_new(true).open(path)
}

/// A temporary folder under `$TMPDIR`: `loopsim-verify-` and a random name,
/// mode 0700, made new; removed when dropped, or by a signal.
#[derive(Debug)]
pub struct Folder {
    dir: Option<tempfile::TempDir>,
}

impl Folder {
    /// Makes the folder.
    ///
    /// # Errors
    /// When it cannot be made, or a signal is being handled.
    pub fn new() -> io::Result<Folder> {
        let mut live = live();
        if live.stopping {
            return Err(stopping());
        }
        let dir = tempfile::Builder::new()
            .prefix("loopsim-verify-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            // Node runs inside it: a relative TMPDIR would name another folder from there.
            .tempdir_in(std::path::absolute(std::env::temp_dir())?)?;
        live.dirs.push(dir.path().to_path_buf());
        Ok(Folder { dir: Some(dir) })
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        self.dir.as_ref().expect("present until dropped").path()
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let mut live = live();
        if let Some(dir) = self.dir.take() {
            live.dirs.retain(|d| d != dir.path());
            let _ = dir.close();
        }
    }
}

/// A running program in a process group of its own (its pid is the group's
/// id). [`Group::finish`], or dropping it, kills the whole group and reaps the
/// program.
#[derive(Debug)]
pub struct Group {
    child: Option<Child>,
}

impl Group {
    /// Starts `cmd` as the leader of a new process group.
    ///
    /// # Errors
    /// When it cannot start, or a signal is being handled.
    pub fn spawn(cmd: &mut Command) -> io::Result<Group> {
        cmd.process_group(0);
        let mut live = live();
        if live.stopping {
            return Err(stopping());
        }
        let child = cmd.spawn()?;
        live.groups.push(pid(&child));
        Ok(Group { child: Some(child) })
    }

    /// Whether the program has exited. It is not reaped yet, so its pid (the
    /// group's id) cannot be reused before [`Group::finish`] kills the group.
    ///
    /// # Errors
    /// When waitid(2) fails.
    pub fn exited(&self) -> io::Result<bool> {
        let child = self.child.as_ref().expect("present until finished");
        // SAFETY: an all-zero siginfo_t is valid (si_pid stays 0 when no child changed state).
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        // SAFETY: `info` is a valid, writable siginfo_t; WNOWAIT leaves the child waitable.
        let r = unsafe { libc::waitid(libc::P_PID, child.id(), &mut info, flags) };
        if r == -1 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            };
        }
        // SAFETY: waitid filled `info` (or left it zeroed); si_pid is set for child events.
        Ok(unsafe { info.si_pid() } != 0)
    }

    /// Waits until the program exits or `limit` has passed, looking every
    /// 5 ms; `true` when it exited (the group is not killed).
    ///
    /// # Errors
    /// When waitid(2) fails.
    pub fn exits_within(&self, limit: std::time::Duration) -> io::Result<bool> {
        let start = std::time::Instant::now();
        loop {
            if self.exited()? {
                return Ok(true);
            }
            if start.elapsed() >= limit {
                return Ok(false);
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Kills the group (the program if it still runs, and whatever it
    /// started), reaps the program and returns how it ended.
    ///
    /// # Errors
    /// When waiting for it fails.
    pub fn finish(mut self) -> io::Result<ExitStatus> {
        end(self.child.take().expect("present until finished"))
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        if let Some(child) = self.child.take() {
            let _ = end(child);
        }
    }
}

fn pid(child: &Child) -> libc::pid_t {
    libc::pid_t::try_from(child.id()).expect("pids fit pid_t")
}

/// Kills `child`'s group, forgets it, then reaps `child` (only then may its
/// pid, the group's id, be reused).
fn end(mut child: Child) -> io::Result<ExitStatus> {
    let group = pid(&child);
    kill_group(group);
    live().groups.retain(|&g| g != group);
    child.wait()
}
