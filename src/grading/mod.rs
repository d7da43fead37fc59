//! Tools for the course's graders, built on the protocol: [`scenario`] writes test cases
//! (grader inputs, with the reference output), [`check`] runs a student's program on them
//! the way the course's harness does and says where and how it goes wrong, and
//! [`check::reference`] is the reference run in memory, line by line; [`class`] grades a
//! whole class in a sandbox, and [`similarity`] finds submissions whose code is alike.

pub mod check;
pub mod class;
pub mod scenario;
pub mod similarity;

use std::sync::{
    Mutex,
    atomic::{AtomicUsize, Ordering},
};

/// Runs `work(index, job)` for each index below `count` on `jobs` threads (`job` is the
/// thread's number, for what each thread keeps apart), indices handed out in order, and
/// returns the results in index order. `work` also says whether to stop: no index is
/// handed out after that, and those not started are left out of the results.
pub fn in_parallel<T: Send>(
    count: usize,
    jobs: usize,
    work: impl Fn(usize, usize) -> (T, bool) + Sync,
) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<T>>> = Mutex::new((0..count).map(|_| None).collect());
    std::thread::scope(|scope| {
        for job in 0..jobs.clamp(1, count.max(1)) {
            let (next, results, work) = (&next, &results, &work);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= count {
                        break;
                    }
                    let (result, stop) = work(index, job);
                    results.lock().expect("not poisoned")[index] = Some(result);
                    if stop {
                        next.store(count, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .expect("not poisoned")
        .into_iter()
        .flatten()
        .collect()
}
