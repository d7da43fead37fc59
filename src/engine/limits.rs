//! Search limits as data: depth, nodes, time, and an outside stop flag.

use std::{
    sync::{
        Mutex, PoisonError,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
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

    /// These limits with `factor` times the nodes and the time (a depth stays as it is).
    #[must_use]
    pub fn times(self, factor: u32) -> Limits {
        Limits {
            depth: self.depth,
            nodes: self
                .nodes
                .map(|nodes| nodes.saturating_mul(u64::from(factor))),
            time: self.time.map(|time| time.saturating_mul(factor)),
        }
    }
}

/// Shared between a running search and other threads: they can ask it to stop, and it
/// publishes how many nodes it has visited (every few thousand) and, for an exact solve, the
/// bounds it has proved, for progress displays.
#[derive(Debug, Default)]
pub struct Signal {
    stop: AtomicBool,
    nodes: AtomicU64,
    /// What an exact solve has proved and is proving: written a few times a root move at
    /// most, read by a display a few times a second, so a lock costs nothing.
    progress: Mutex<SolveProgress>,
}

/// An exact solve's bounds proved and its step under way, as [`Signal`] keeps them.
#[derive(Clone, Copy, Debug, Default)]
struct SolveProgress {
    proved: Option<(i32, i32)>,
    step: Option<SolveStep>,
}

/// What an exact solve is proving now: whether the score reaches `testing`, by searching
/// root move `move_number` of `moves`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolveStep {
    /// The score tested.
    pub testing: i32,
    /// The root move being searched, from 1.
    pub move_number: u32,
    /// Moves at the root.
    pub moves: u32,
}

impl Signal {
    /// A signal that has not asked anything yet.
    pub const fn new() -> Signal {
        Signal {
            stop: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            progress: Mutex::new(SolveProgress {
                proved: None,
                step: None,
            }),
        }
    }

    /// Asks the searches watching this signal to stop (they return their last finished
    /// result, or none).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was asked for.
    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Nodes the latest search watching this signal had visited when it last looked.
    pub fn nodes(&self) -> u64 {
        self.nodes.load(Ordering::Relaxed)
    }

    /// The bounds `(lower, upper)` an exact solve watching this signal has proved so far
    /// (final disc difference for the side to move: the score is in `lower..=upper`), once
    /// its first step has finished.
    pub fn proved(&self) -> Option<(i32, i32)> {
        self.progress().proved
    }

    /// The step an exact solve watching this signal is taking, once it has started one.
    pub fn step(&self) -> Option<SolveStep> {
        self.progress().step
    }

    /// Publishes the bounds a solve has proved.
    pub(crate) fn prove(&self, lower: i32, upper: i32) {
        self.progress_mut(|progress| progress.proved = Some((lower, upper)));
    }

    /// Publishes the step a solve is taking.
    pub(crate) fn take_step(&self, step: SolveStep) {
        self.progress_mut(|progress| progress.step = Some(step));
    }

    fn progress(&self) -> SolveProgress {
        *self.progress.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn progress_mut(&self, change: impl FnOnce(&mut SolveProgress)) {
        change(&mut self.progress.lock().unwrap_or_else(PoisonError::into_inner));
    }
}

/// Nodes between two looks at the clock and the stop flag.
const CHECK_EVERY: u64 = 4096;

/// Decides when a running search must stop: counts nodes, and every few thousand steps of
/// work looks at the clock and the outside flag. Once stopped it stays stopped.
///
/// Work is counted apart from nodes: a search also spends time between its nodes (ordering
/// moves by shallow searches, on a 16 × 16 board thousands of positions a node), which
/// [`Stopper::work`] counts so the clock is looked at as often, without changing the node
/// count a search reports.
#[derive(Debug)]
pub(crate) struct Stopper<'a> {
    deadline: Option<Instant>,
    max_nodes: u64,
    signal: Option<&'a Signal>,
    nodes: u64,
    /// Nodes and other steps of work.
    work: u64,
    next_check: u64,
    stopped: bool,
}

impl<'a> Stopper<'a> {
    /// Starts the clock for `limits`; `signal`, when another thread asks it to stop, stops
    /// the search, and hears the node count at every look.
    pub(crate) fn new(limits: &Limits, signal: Option<&'a Signal>) -> Stopper<'a> {
        Stopper {
            // A time past what the clock can count is no deadline (odds times a huge time).
            deadline: limits
                .time
                .and_then(|time| Instant::now().checked_add(time)),
            max_nodes: limits.nodes.unwrap_or(u64::MAX),
            signal,
            nodes: 0,
            work: 0,
            // The first node looks: a search asked to stop before it starts stops at once.
            next_check: 1,
            stopped: false,
        }
    }

    /// Counts one node; true if the search must stop now.
    #[inline(always)]
    pub(crate) fn tick(&mut self) -> bool {
        self.nodes += 1;
        self.work += 1;
        if self.work >= self.next_check {
            self.check();
        }
        self.stopped
    }

    /// Counts one step of work that is not a node (a position of an ordering search);
    /// true if the search must stop now.
    #[inline(always)]
    pub(crate) fn work(&mut self) -> bool {
        self.work += 1;
        if self.work >= self.next_check {
            self.check();
        }
        self.stopped
    }

    #[cold]
    fn check(&mut self) {
        // Work grows at least as fast as nodes: looking again no later than the node limit
        // could be reached lands exactly on it.
        let nodes_left = self.max_nodes.saturating_sub(self.nodes).max(1);
        self.next_check = self.work + CHECK_EVERY.min(nodes_left);
        let late = self
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline);
        let asked = self.signal.is_some_and(|signal| {
            signal.nodes.store(self.nodes, Ordering::Relaxed);
            signal.is_stopped()
        });
        self.stopped |= late || asked || self.nodes >= self.max_nodes;
    }

    /// Publishes the bounds an exact solve has proved to the signal, if there is one.
    pub(crate) fn prove(&self, lower: i32, upper: i32) {
        if let Some(signal) = self.signal {
            signal.prove(lower, upper);
        }
    }

    /// Publishes the step an exact solve is taking to the signal, if there is one.
    pub(crate) fn take_step(&self, step: SolveStep) {
        if let Some(signal) = self.signal {
            signal.take_step(step);
        }
    }

    /// Whether the search has been stopped.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    /// Nodes counted so far.
    pub(crate) fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Time left before the deadline, if there is one.
    pub(crate) fn remaining(&self) -> Option<Duration> {
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
        let signal = Signal::new();
        let mut stopper = Stopper::new(&Limits::NONE, Some(&signal));
        assert!((0..10_000).all(|_| !stopper.tick()));
        assert!(signal.nodes() >= 8192, "the count is published as it runs");
        signal.stop();
        assert!((0..10_000).any(|_| stopper.tick()));
        assert!(stopper.stopped());
    }

    #[test]
    fn odds_multiply_nodes_and_time_but_not_depth() {
        let limits = Limits {
            depth: Some(7),
            nodes: Some(1_000),
            time: Some(Duration::from_millis(30)),
        };
        let given = limits.times(4);
        assert_eq!(given.depth, Some(7));
        assert_eq!(given.nodes, Some(4_000));
        assert_eq!(given.time, Some(Duration::from_millis(120)));
        assert_eq!(limits.times(1), limits);
        assert_eq!(Limits::NONE.times(9), Limits::NONE, "no limit stays none");
        assert_eq!(Limits::nodes(u64::MAX).times(2).nodes, Some(u64::MAX));
    }

    #[test]
    fn time_limit() {
        let mut stopper = Stopper::new(&Limits::time(Duration::ZERO), None);
        assert!((0..10_000).any(|_| stopper.tick()));
        // Found by the red team: u64::MAX ms given 1,000 times over panicked here.
        let endless = Limits::time(Duration::from_millis(u64::MAX)).times(1_000);
        let mut stopper = Stopper::new(&endless, None);
        assert!((0..10_000).all(|_| !stopper.tick()));
    }
}
