//! What a long search shows on a terminal: a warning before one that may never end, and a
//! spinner with the nodes visited and the time taken while it runs (on stderr, so the
//! results on stdout stay clean).

use std::{
    sync::atomic::{AtomicBool, Ordering},
    thread,
    time::Duration,
};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use othello::engine::Signal;

/// How often the spinner's message is refreshed.
const REFRESH: Duration = Duration::from_millis(100);

/// An estimated search time from which people are warned before it starts.
pub const WARN_AFTER: Duration = Duration::from_secs(10);

/// Runs `work`; when `enabled`, a spinner on stderr shows `describe(nodes)` (the nodes
/// `signal` last heard of) and the time taken, until the work is done.
pub fn ticking<T>(
    enabled: bool,
    signal: &Signal,
    describe: &(dyn Fn(u64) -> String + Sync),
    work: impl FnOnce() -> T,
) -> T {
    if !enabled {
        return work();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {elapsed} {msg}").expect("a valid template"),
    );
    let done = AtomicBool::new(false);
    let result = thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                bar.set_message(describe(signal.nodes()));
                bar.tick();
                thread::park_timeout(REFRESH);
            }
        });
        let result = work();
        done.store(true, Ordering::Relaxed);
        result
    });
    bar.finish_and_clear();
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
        assert_eq!(ticking(false, &signal, &|_| String::new(), || 7), 7);
    }
}
