//! What a command reads and where it writes: this machine's files and
//! streams ([`NativeHost`], the binary), or those a host supplies (the npm
//! package's JavaScript, through WebAssembly: `web/wasm`).

use std::ffi::OsString;
use std::io;
use std::path::Path;

/// One of the two output streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What is at a path, as far as `test`'s walk and `load` care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// A symbolic link (only when asked not to follow links).
    Symlink,
    /// A named pipe (what `/dev/stdin` is when input is piped).
    Pipe,
    /// Anything else: "a character device", "a socket", …
    Other(&'static str),
}

impl Kind {
    /// "a regular file", "a folder", "a named pipe", …
    pub fn describe(self) -> &'static str {
        match self {
            Kind::File => "a regular file",
            Kind::Dir => "a folder",
            Kind::Symlink => "a symbolic link",
            Kind::Pipe => "a named pipe",
            Kind::Other(what) => what,
        }
    }
}

/// The files and streams a command uses.
pub trait Host {
    /// The bytes of the file at `path`, with [`crate::load::read`]'s rules
    /// (regular files and pipes only, at most [`crate::load::MAX_FILE_BYTES`]).
    ///
    /// # Errors
    /// What reading fails with.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>>;

    /// What is at `path`; `follow`: through a symbolic link.
    ///
    /// # Errors
    /// What asking fails with (no such file, no permission).
    fn kind(&self, path: &Path, follow: bool) -> io::Result<Kind>;

    /// The names of the entries of the folder at `path`, in any order.
    ///
    /// # Errors
    /// What listing fails with.
    fn names(&self, path: &Path) -> io::Result<Vec<OsString>>;

    /// Writes `bytes` to `stream` (errors are ignored, as `print!`'s would
    /// end the process: a closed pipe ends it quietly on this machine).
    fn write(&self, stream: Stream, bytes: &[u8]);

    /// Whether `stream` is coloured under `--color auto`.
    fn auto_color(&self, stream: Stream) -> bool;

    /// The width of standard error in columns when it is a terminal, which
    /// diagnostics' messages and help lines wrap to, between words only;
    /// `None` (not a terminal, or not known): miette's wrapping at 200
    /// columns. (Not in the WebAssembly build, for its size budget.)
    #[cfg(not(target_family = "wasm"))]
    fn stderr_width(&self) -> Option<usize> {
        None
    }

    /// Prints a usage error, `--help` or `--version` the way clap does, and
    /// returns its exit code (2 for an error, 0 for help and version).
    /// `color`: coloured or not as `--color always|never` asked, if it did
    /// (else as [`Host::auto_color`] says).
    fn usage_error(&self, error: &clap::Error, color: Option<bool>) -> u8 {
        write_usage_error(self, error, color)
    }
}

/// [`Host::usage_error`] written through `host`'s streams.
fn write_usage_error(host: &(impl Host + ?Sized), error: &clap::Error, color: Option<bool>) -> u8 {
    let stream = if error.use_stderr() { Stream::Stderr } else { Stream::Stdout };
    let styled = error.render();
    // (The WebAssembly build's clap has no colours: its help is plain.)
    #[cfg(not(target_family = "wasm"))]
    let text = if color.unwrap_or_else(|| host.auto_color(stream)) {
        styled.ansi().to_string()
    } else {
        styled.to_string()
    };
    #[cfg(target_family = "wasm")]
    let text = {
        let _ = color;
        styled.to_string()
    };
    host.write(stream, text.as_bytes());
    u8::try_from(error.exit_code()).unwrap_or(2)
}

/// An [`io::Write`] onto one of a host's streams.
pub struct Writer<'h> {
    host: &'h dyn Host,
    stream: Stream,
}

impl<'h> Writer<'h> {
    pub fn new(host: &'h dyn Host, stream: Stream) -> Self {
        Writer { host, stream }
    }
}

impl io::Write for Writer<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.host.write(self.stream, buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// This machine's files, standard output and standard error.
pub struct NativeHost;

impl Host for NativeHost {
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        crate::load::read(path)
    }

    fn kind(&self, path: &Path, follow: bool) -> io::Result<Kind> {
        let meta = if follow {
            std::fs::metadata(path)?
        } else {
            std::fs::symlink_metadata(path)?
        };
        let kind = meta.file_type();
        Ok(if kind.is_file() {
            Kind::File
        } else if kind.is_dir() {
            Kind::Dir
        } else if kind.is_symlink() {
            Kind::Symlink
        } else if crate::load::is_pipe(&kind) {
            Kind::Pipe
        } else {
            Kind::Other(crate::load::file_kind(&kind))
        })
    }

    fn names(&self, path: &Path) -> io::Result<Vec<OsString>> {
        std::fs::read_dir(path)?.map(|entry| Ok(entry?.file_name())).collect()
    }

    fn write(&self, stream: Stream, bytes: &[u8]) {
        use std::io::Write;
        match stream {
            Stream::Stdout => print_stdout(bytes),
            // Nowhere left to tell of a failed write to stderr.
            Stream::Stderr => {
                let _ = std::io::stderr().lock().write_all(bytes);
            }
        }
    }

    fn auto_color(&self, stream: Stream) -> bool {
        let choice = match stream {
            Stream::Stdout => anstream::AutoStream::choice(&std::io::stdout()),
            Stream::Stderr => anstream::AutoStream::choice(&std::io::stderr()),
        };
        choice != anstream::ColorChoice::Never
    }

    // (Not in the WebAssembly build, where this host is not used.)
    #[cfg(not(target_family = "wasm"))]
    fn stderr_width(&self) -> Option<usize> {
        terminal_size::terminal_size_of(std::io::stderr()).map(|(w, _)| usize::from(w.0))
    }

    fn usage_error(&self, error: &clap::Error, color: Option<bool>) -> u8 {
        if color.is_some() {
            return write_usage_error(self, error, color);
        }
        // clap's own printing: colour as clap decides it, as `Cli::parse` did.
        if let Err(e) = error.print() {
            if !error.use_stderr() {
                stdout_failed(e);
            }
        }
        u8::try_from(error.exit_code()).unwrap_or(2)
    }
}

/// The first error writing standard output met (a full disk, a broken
/// pipe), kept for [`output_failed`]. (A closed descriptor 1 is not one: Rust
/// opens /dev/null there at start-up.)
static STDOUT_ERROR: std::sync::OnceLock<io::Error> = std::sync::OnceLock::new();

/// Writes `bytes` to standard output, keeping the first error for
/// [`output_failed`] instead of panicking as `print!` does.
pub fn print_stdout(bytes: &[u8]) {
    use std::io::Write;
    if let Err(e) = std::io::stdout().lock().write_all(bytes) {
        stdout_failed(e);
    }
}

fn stdout_failed(error: io::Error) {
    let _ = STDOUT_ERROR.set(error);
}

/// Flushes standard output, and returns the first error writing it met, if
/// any: the command's output is then incomplete, whatever its exit code said
/// (`cli::main` exits with [`crate::cli::EXIT_OUTPUT`]).
pub fn output_failed() -> Option<&'static io::Error> {
    use std::io::Write;
    if let Err(e) = std::io::stdout().lock().flush() {
        stdout_failed(e);
    }
    STDOUT_ERROR.get()
}
