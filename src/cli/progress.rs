//! A spinner on stderr while a search for orders runs long (`run
//! --all-orders`, and the searches of `check` and `test`), or a run (`run`
//! with limits raised far): only when stderr
//! is a terminal, and only once the search has run for
//! [`SHOW_AFTER`], so that quick searches and piped output never see it.
//! A search's counts the schedules replayed and the orders found
//! ([`crate::orders::Progress`]); a run's says only how long it has run.
//! It is cleared before the answer is printed.

use crate::orders::Progress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The counters the command line's searches write (one search at a time).
static PROGRESS: Progress = Progress::new();

/// How long a search runs before the spinner shows.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// How often the spinner's counts are read again.
const REFRESH: Duration = Duration::from_millis(100);

/// The spinner of one search: stopped and cleared when dropped.
pub struct Spinner {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Spinner {
    /// Starts counting a search about `what` (a file's name) that stops at
    /// `limit`: the counters to give the search's bounds, and the spinner,
    /// which shows on a terminal once the search has run [`SHOW_AFTER`].
    pub fn start(what: &str, limit: Option<Duration>) -> (Spinner, &'static Progress) {
        PROGRESS.schedules.store(0, Relaxed);
        PROGRESS.orders.store(0, Relaxed);
        // "⠒ 2s of 10s: 301,821 schedules replayed, 3 orders found (a.loop)":
        // the counts first, as a narrow terminal cuts the end.
        let what = crate::term::escape(what).into_owned();
        let spinner = Spinner::showing(limit, move || {
            format!(
                "{} schedules replayed, {} orders found ({what})",
                crate::render::thousands(PROGRESS.schedules.load(Relaxed)),
                crate::render::thousands(PROGRESS.orders.load(Relaxed)),
            )
        });
        (spinner, &PROGRESS)
    }

    /// A spinner for a run of the file `what` that goes on past
    /// [`SHOW_AFTER`] (limits raised far: `--max-callbacks
    /// 18446744073709551615` on an endless chain ran with no sign of life,
    /// fresh-clone helper 81): its time, and that Ctrl-C stops it.
    pub fn running(what: &str) -> Spinner {
        let what = crate::term::escape(what).into_owned();
        Spinner::showing(None, move || format!("running {what} (Ctrl-C stops it)"))
    }

    /// The spinner, on a terminal only, with `message` read again every
    /// [`REFRESH`] once [`SHOW_AFTER`] has passed; `limit`: the time bound
    /// shown beside the time taken.
    fn showing(limit: Option<Duration>, message: impl Fn() -> String + Send + 'static) -> Spinner {
        let done = Arc::new(AtomicBool::new(false));
        if !std::io::stderr().is_terminal() {
            return Spinner { done, thread: None };
        }
        let template = match limit {
            Some(t) => format!("{{spinner}} {{elapsed}} of {}s: {{wide_msg}}", t.as_secs()),
            None => "{spinner} {elapsed}: {wide_msg}".to_string(),
        };
        let stop = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let started = Instant::now();
            let mut bar: Option<ProgressBar> = None;
            while !stop.load(Relaxed) {
                // Unparked when the search ends: no wait at the end.
                std::thread::park_timeout(REFRESH);
                if stop.load(Relaxed) {
                    break;
                }
                if started.elapsed() < SHOW_AFTER {
                    continue;
                }
                let bar = bar.get_or_insert_with(|| {
                    // Its seconds count from the search's start, not from now.
                    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_elapsed(started.elapsed());
                    bar.set_style(ProgressStyle::with_template(&template).expect("a valid template"));
                    bar
                });
                bar.set_message(message());
                bar.tick();
            }
            if let Some(bar) = bar {
                bar.finish_and_clear();
            }
        });
        Spinner {
            done,
            thread: Some(thread),
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.done.store(true, Relaxed);
        if let Some(thread) = self.thread.take() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}
