//! Search limits as data: depth, nodes, time, and an outside stop flag.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

/// How long a search may run. Unset fields do not limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Deepest midgame iteration, in plies.
    pub depth: Option<u32>,
    /// Most nodes to visit.
    pub nodes: Option<u64>,
    /// Longest time to take.
    pub time: Option<Duration>,
}

impl Limits {
    /// No limit at all (search to the end).
    pub const NONE: Limits = Limits {
        depth: None,
        nodes: None,
        time: None,
    };

    /// A depth limit.
    #[must_use]
    pub const fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::NONE
        }
    }

    /// A node limit.
    #[must_use]
    pub const fn nodes(nodes: u64) -> Limits {
        Limits {
            nodes: Some(nodes),
            ..Limits::NONE
        }
    }

    /// A time limit.
    #[must_use]
    pub const fn time(time: Duration) -> Limits {
        Limits {
            time: Some(time),
            ..Limits::NONE
        }
    }
}

/// Nodes between two looks at the clock and the stop flag.
const CHECK_EVERY: u64 = 4096;

/// Decides when a running search must stop: counts nodes, and every few thousand nodes
/// looks at the clock and the outside flag. Once stopped it stays stopped.
#[derive(Debug)]
pub struct Stopper<'a> {
    deadline: Option<Instant>,
    max_nodes: u64,
    flag: Option<&'a AtomicBool>,
    nodes: u64,
    next_check: u64,
    stopped: bool,
}

impl<'a> Stopper<'a> {
    /// Starts the clock for `limits`; `flag`, when set by another thread, stops the search.
    pub fn new(limits: &Limits, flag: Option<&'a AtomicBool>) -> Stopper<'a> {
        Stopper {
            deadline: limits.time.map(|time| Instant::now() + time),
            max_nodes: limits.nodes.unwrap_or(u64::MAX),
            flag,
            nodes: 0,
            // The first node looks: a search asked to stop before it starts stops at once.
            next_check: 1,
            stopped: false,
        }
    }

    /// Counts one node; true if the search must stop now.
    #[inline(always)]
    pub fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.next_check {
            self.check();
        }
        self.stopped
    }

    #[cold]
    fn check(&mut self) {
        // Land exactly on the node limit.
        self.next_check = (self.nodes + CHECK_EVERY).min(self.max_nodes.max(self.nodes + 1));
        let late = self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline);
        let asked = self.flag.is_some_and(|flag| flag.load(Ordering::Relaxed));
        self.stopped |= late || asked || self.nodes >= self.max_nodes;
    }

    /// Whether the search has been stopped.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Nodes counted so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Time left before the deadline, if there is one.
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|deadline| deadline.saturating_duration_since(Instant::now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_limit_and_flag() {
        let mut stopper = Stopper::new(&Limits::nodes(10_000), None);
        let ticks = (0..100_000).take_while(|_| !stopper.tick()).count();
        assert_eq!(ticks, 9_999, "the 10,000th node stops");
        let flag = AtomicBool::new(false);
        let mut stopper = Stopper::new(&Limits::NONE, Some(&flag));
        assert!((0..10_000).all(|_| !stopper.tick()));
        flag.store(true, Ordering::Relaxed);
        assert!((0..10_000).any(|_| stopper.tick()));
        assert!(stopper.stopped());
    }

    #[test]
    fn time_limit() {
        let mut stopper = Stopper::new(&Limits::time(Duration::ZERO), None);
        assert!((0..10_000).any(|_| stopper.tick()));
    }
}
