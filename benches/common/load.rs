//! What the load benchmarks share: more connections for the load generator, percentiles.
#![allow(dead_code)]

use std::time::Duration;

/// Lets this process open as many files (connections) as it may.
pub fn raise_file_limit() {
    // SAFETY: plain system calls on this process's own limits.
    unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// The `fraction` percentile of `sorted` (zero for none).
pub fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let index = ((sorted.len() as f64 * fraction).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index]
}
