//! What a long search shows on a terminal: a warning before one that may never end, and a
//! spinner with the nodes visited and the time taken while it runs (on stderr, so the
//! results on stdout stay clean); and Ctrl-C, which stops a search that then reports.

use std::{
    sync::{
        Once,
        atomic::{AtomicBool, Ordering},
    },
    thread,
    time::{Duration, Instant},
};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use othello::engine::Signal;

/// How often the spinner's message is refreshed.
const REFRESH: Duration = Duration::from_millis(100);

/// An estimated search time from which people are warned before it starts.
pub const WARN_AFTER: Duration = Duration::from_secs(10);

/// Set by the first Ctrl-C once [`catch_interrupts`] has run.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// From now on, the first Ctrl-C asks the work [`ticking`] runs to stop (it then reports
/// what it has found) and a second one ends the program at once, with status 130.
pub fn catch_interrupts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Without a handler (none can be installed) Ctrl-C ends the program as usual.
        let _ = ctrlc::set_handler(|| {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    });
}

/// The flag the first Ctrl-C (or SIGTERM) sets, for work that watches it itself.
pub fn interrupt_flag() -> &'static AtomicBool {
    &INTERRUPTED
}

/// Whether Ctrl-C was pressed since [`catch_interrupts`].
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Runs `work`, stopping `signal` on Ctrl-C (see [`catch_interrupts`]); when `enabled`, a
/// spinner on stderr shows `describe(nodes, seconds)` (the nodes `signal` last heard of and
/// the time taken) until the work is done.
pub fn ticking<T>(
    enabled: bool,
    signal: &Signal,
    describe: &(dyn Fn(u64, f64) -> String + Sync),
    work: impl FnOnce() -> T,
) -> T {
    let bar = enabled.then(|| {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("a valid template"),
        );
        bar
    });
    let done = AtomicBool::new(false);
    let start = Instant::now();
    let result = thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                if interrupted() {
                    signal.stop();
                }
                if let Some(bar) = &bar {
                    bar.set_message(describe(signal.nodes(), start.elapsed().as_secs_f64()));
                    bar.tick();
                }
                thread::park_timeout(REFRESH);
            }
        });
        let result = work();
        done.store(true, Ordering::Relaxed);
        watcher.thread().unpark();
        result
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    result
}

/// `12,345,678`.
pub fn thousands(number: u64) -> String {
    let digits = number.to_string();
    let mut text = String::with_capacity(digits.len() * 4 / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

/// A rough duration for people: `about 3 minutes`, `about 2 days`, `longer than a lifetime`.
pub fn roughly(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    let units = [
        (60.0, "second"),
        (3600.0, "minute"),
        (86_400.0, "hour"),
        (365.25 * 86_400.0, "day"),
        (100.0 * 365.25 * 86_400.0, "year"),
    ];
    let mut unit_seconds = 1.0;
    for (limit, name) in units {
        if seconds < limit {
            let count = (seconds / unit_seconds).round().max(1.0);
            let plural = if count == 1.0 { "" } else { "s" };
            return format!("about {count} {name}{plural}");
        }
        unit_seconds = limit;
    }
    "longer than a lifetime".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_durations_for_people() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(12_345_678), "12,345,678");
        assert_eq!(roughly(Duration::from_secs(12)), "about 12 seconds");
        assert_eq!(roughly(Duration::from_secs(90)), "about 2 minutes");
        assert_eq!(roughly(Duration::from_secs(3 * 86_400)), "about 3 days");
        assert_eq!(roughly(Duration::MAX), "longer than a lifetime");
        let signal = Signal::new();
        assert_eq!(ticking(false, &signal, &|_, _| String::new(), || 7), 7);
    }
}
