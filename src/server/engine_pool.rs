//! A bounded pool for engine work (moves, hints, evaluations): as many threads as cores,
//! each at a lower scheduling priority than the threads that answer people, so a machine
//! busy with searches still answers requests first. Jobs wait in order for a free thread.

use std::{
    sync::{Arc, Mutex, mpsc},
    thread,
};

use tokio::sync::oneshot;

/// A job for the pool.
type Job = Box<dyn FnOnce() + Send>;

/// How much lower than normal the engine threads run (Unix `nice`).
const NICENESS: i32 = 10;

/// The engine threads.
#[derive(Clone)]
pub struct EnginePool {
    jobs: mpsc::Sender<Job>,
    size: usize,
}

impl std::fmt::Debug for EnginePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EnginePool({} threads)", self.size)
    }
}

impl EnginePool {
    /// A pool of `size` threads (at least one).
    pub fn new(size: usize) -> EnginePool {
        let size = size.max(1);
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for index in 0..size {
            let queue = Arc::clone(&queue);
            thread::Builder::new()
                .name(format!("engine-{index}"))
                .spawn(move || {
                    lower_priority();
                    loop {
                        let job = queue.lock().expect("not poisoned").recv();
                        match job {
                            Ok(job) => job(),
                            Err(_) => return, // the pool is gone
                        }
                    }
                })
                .expect("a thread can be started");
        }
        EnginePool { jobs, size }
    }

    /// A pool with a thread per core.
    pub fn per_core() -> EnginePool {
        EnginePool::new(thread::available_parallelism().map_or(1, usize::from))
    }

    /// How many jobs run at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Queues `work` on the pool at once; the future is its result, or `None` if the pool
    /// stopped first.
    pub fn run<T, F>(&self, work: F) -> impl Future<Output = Option<T>> + use<T, F>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (done, result) = oneshot::channel();
        let job: Job = Box::new(move || {
            let _ = done.send(work());
        });
        let queued = self.jobs.send(job).is_ok();
        async move {
            if !queued {
                return None;
            }
            result.await.ok()
        }
    }
}

/// Lowers the calling thread's priority (on Linux, `nice` is per thread).
fn lower_priority() {
    #[cfg(unix)]
    // SAFETY: a plain system call on the calling thread; failure only leaves the priority.
    unsafe {
        let _ = libc::nice(NICENESS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn runs_jobs_on_at_most_its_threads() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool = EnginePool::new(2);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let mut results = Vec::new();
        for index in 0..8 {
            let (running, most) = (Arc::clone(&running), Arc::clone(&most));
            results.push(pool.run(move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                thread::sleep(std::time::Duration::from_millis(20));
                running.fetch_sub(1, Ordering::SeqCst);
                index * 2
            }));
        }
        let mut values = Vec::new();
        for result in results {
            values.push(result.await.unwrap());
        }
        assert_eq!(values, [0, 2, 4, 6, 8, 10, 12, 14]);
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }
}
