//! Parallel search by Lazy SMP: helper threads search the same position beside the main
//! thread, sharing one transposition table; what they store (bounds, best moves) saves the
//! main thread work. Only the main thread's result counts, so a parallel search returns what
//! a single thread would, found sooner; an exact score is the same exact score.
//!
//! Chosen over Young Brothers Wait (splitting the tree at nodes whose first child is
//! searched) for its simplicity: no shared stacks or split points, and the searches
//! themselves are unchanged. See BENCHMARKS.md for the speed-up measured.

use std::{
    sync::atomic::{AtomicU64, Ordering},
    thread,
};

use super::super::limits::Signal;

/// Slots of [`BUSY`].
const BUSY_SLOTS: usize = 1 << 14;

/// Positions some thread is searching now, by hash (one slot per hash's low bits): a thread
/// that meets one among its node's later children searches it last, when the other thread's
/// result is likely in the table (as in ABDADA). Shared by every search of the process: a
/// clash only changes the order children are searched in, never a score.
static BUSY: [AtomicU64; BUSY_SLOTS] = [const { AtomicU64::new(0) }; BUSY_SLOTS];

fn busy_slot(key: u64) -> &'static AtomicU64 {
    &BUSY[(key >> 20) as usize % BUSY_SLOTS]
}

/// Whether another thread is searching the position with hash `key`.
#[inline]
pub(super) fn is_busy(key: u64) -> bool {
    busy_slot(key).load(Ordering::Relaxed) == key
}

/// Marks the position with hash `key` as being searched until the guard is dropped.
#[inline]
pub(super) fn mark_busy(key: u64) -> BusyGuard {
    busy_slot(key).store(key, Ordering::Relaxed);
    BusyGuard(key)
}

/// Unmarks its position when dropped (unless another position took the slot since).
pub(super) struct BusyGuard(u64);

impl Drop for BusyGuard {
    fn drop(&mut self) {
        let _ = busy_slot(self.0).compare_exchange(self.0, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

/// Later children a node put off because they were busy; too many and the rest are
/// searched at once.
#[derive(Default)]
pub(super) struct Deferred {
    moves: [u16; 16],
    len: usize,
}

impl Deferred {
    /// Puts off the move at `index` of the move stack, if there is room.
    #[inline]
    pub(super) fn push(&mut self, index: usize) -> bool {
        if self.len == self.moves.len() || index > usize::from(u16::MAX) {
            return false;
        }
        self.moves[self.len] = index as u16;
        self.len += 1;
        true
    }

    /// The moves put off, in order.
    pub(super) fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.moves[..self.len]
            .iter()
            .map(|&index| usize::from(index))
    }
}

/// Stack for a helper thread: the recursion of a search on a 16 × 16 board is deep.
const HELPER_STACK: usize = 64 << 20;

/// The helper threads of one parallel search, as the main thread sees them.
pub(super) struct Helpers {
    signals: Vec<Signal>,
}

impl Helpers {
    /// Nodes the helpers have visited so far (as each last published).
    pub(super) fn nodes(&self) -> u64 {
        self.signals.iter().map(Signal::nodes).sum()
    }

    fn stop(&self) {
        for signal in &self.signals {
            signal.stop();
        }
    }
}

/// Runs `main` on this thread while `threads - 1` helpers run `helper(number, signal)`
/// beside it (numbered from 1; each should stop when its `signal` says so and return the
/// nodes it visited). When `main` returns, the helpers are stopped and joined; returns
/// `main`'s result and the helpers' nodes.
///
/// With one thread, `main` runs alone.
pub(super) fn lazy_smp<R>(
    threads: usize,
    helper: impl Fn(usize, &Signal) -> u64 + Sync,
    main: impl FnOnce(&Helpers) -> R,
) -> (R, u64) {
    let helpers = Helpers {
        signals: (1..threads.max(1)).map(|_| Signal::new()).collect(),
    };
    if helpers.signals.is_empty() {
        return (main(&helpers), 0);
    }
    thread::scope(|scope| {
        let helper = &helper;
        let running: Vec<_> = helpers
            .signals
            .iter()
            .enumerate()
            .filter_map(|(index, signal)| {
                // A helper the system will not start is only a slower search.
                thread::Builder::new()
                    .name(format!("search helper {}", index + 1))
                    .stack_size(HELPER_STACK)
                    .spawn_scoped(scope, move || helper(index + 1, signal))
                    .ok()
            })
            .collect();
        let result = {
            // Stops the helpers even if `main` panics, so the scope's join cannot hang.
            let _stop = StopOnDrop(&helpers);
            main(&helpers)
        };
        let nodes = running
            .into_iter()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .sum();
        (result, nodes)
    })
}

struct StopOnDrop<'a>(&'a Helpers);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// The number of threads to search with when none is asked for: every core.
pub fn all_cores() -> usize {
    thread::available_parallelism().map_or(1, usize::from)
}
