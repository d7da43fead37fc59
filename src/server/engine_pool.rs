//! A bounded pool for engine work (moves, hints, evaluations): as many threads as cores,
//! each at a lower scheduling priority than the threads that answer people, so a machine
//! busy with searches still answers requests first.
//!
//! Work comes in two lanes. [`Lane::People`] is what a person waits for (the engine's reply
//! in a game with a person in it, a hint, the graph of such a game); [`Lane::Engines`] is
//! games between engines. A free thread always takes people's work first, and engine games
//! never hold more than all threads but one (when there are two or more), so however many
//! engine games are being watched, a person's job waits at most for other people's jobs.
//! Within a lane, jobs run in the order they came.

use std::{
    collections::VecDeque,
    sync::{Arc, Condvar, Mutex},
    thread,
};

use tokio::sync::oneshot;

/// A job for the pool.
type Job = Box<dyn FnOnce() + Send>;

/// How much lower than normal the engine threads run (Unix `nice`).
const NICENESS: i32 = 10;

/// Whose work a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// A person waits for it: goes first.
    People,
    /// A game between engines: runs on what people leave free.
    Engines,
}

/// The pool is full for optional work (see [`EnginePool::try_run`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Busy;

#[derive(Default)]
struct Queues {
    people: VecDeque<Job>,
    engines: VecDeque<Job>,
    /// Engine-lane jobs running now.
    engines_running: usize,
    /// The pool is gone: threads end once the queues are empty.
    closed: bool,
}

struct Shared {
    queues: Mutex<Queues>,
    ready: Condvar,
    /// The most engine-lane jobs at once.
    engine_threads: usize,
}

impl Shared {
    /// The next job this thread may run, waiting for one; `None` once closed and drained.
    fn next(&self) -> Option<(Job, Lane)> {
        let mut queues = self.queues.lock().expect("not poisoned");
        loop {
            if let Some(job) = queues.people.pop_front() {
                return Some((job, Lane::People));
            }
            if queues.engines_running < self.engine_threads
                && let Some(job) = queues.engines.pop_front()
            {
                queues.engines_running += 1;
                return Some((job, Lane::Engines));
            }
            if queues.closed && queues.people.is_empty() && queues.engines.is_empty() {
                return None;
            }
            queues = self.ready.wait(queues).expect("not poisoned");
        }
    }

    fn finished(&self, lane: Lane) {
        if lane == Lane::Engines {
            self.queues.lock().expect("not poisoned").engines_running -= 1;
            // An engine slot is free: a thread waiting only for that may go.
            self.ready.notify_all();
        }
    }
}

/// Closes the queues when the last handle on the pool goes.
struct Closer(Arc<Shared>);

impl Drop for Closer {
    fn drop(&mut self) {
        self.0.queues.lock().expect("not poisoned").closed = true;
        self.0.ready.notify_all();
    }
}

/// The engine threads.
#[derive(Clone)]
pub struct EnginePool {
    shared: Arc<Shared>,
    _closer: Arc<Closer>,
    size: usize,
}

impl std::fmt::Debug for EnginePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "EnginePool({} threads)", self.size)
    }
}

impl EnginePool {
    /// A pool of `size` threads (at least one); games between engines get all but one of
    /// them (the one thread of a pool of one).
    pub fn new(size: usize) -> EnginePool {
        let size = size.max(1);
        let shared = Arc::new(Shared {
            queues: Mutex::new(Queues::default()),
            ready: Condvar::new(),
            engine_threads: (size - 1).max(1),
        });
        for index in 0..size {
            let shared = Arc::clone(&shared);
            thread::Builder::new()
                .name(format!("engine-{index}"))
                .spawn(move || {
                    lower_priority();
                    while let Some((job, lane)) = shared.next() {
                        job();
                        shared.finished(lane);
                    }
                })
                .expect("a thread can be started");
        }
        EnginePool {
            _closer: Arc::new(Closer(Arc::clone(&shared))),
            shared,
            size,
        }
    }

    /// A pool with a thread per core.
    pub fn per_core() -> EnginePool {
        EnginePool::new(thread::available_parallelism().map_or(1, usize::from))
    }

    /// How many jobs run at once.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Queues `work` in `lane` at once; the future is its result, or `None` if the pool
    /// stopped first.
    pub fn run<T, F>(&self, lane: Lane, work: F) -> impl Future<Output = Option<T>> + use<T, F>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (done, result) = oneshot::channel();
        self.push(lane, work, done);
        async move { result.await.ok() }
    }

    /// Like [`EnginePool::run`] in the people's lane, for work nobody's game waits on (a
    /// hint): refused with [`Busy`] when `limit` people's jobs already wait, so that
    /// requests cannot pile up without end.
    ///
    /// # Errors
    /// [`Busy`] when the queue is that long.
    pub fn try_run<T, F>(
        &self,
        limit: usize,
        work: F,
    ) -> Result<impl Future<Output = Option<T>> + use<T, F>, Busy>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        if self
            .shared
            .queues
            .lock()
            .expect("not poisoned")
            .people
            .len()
            >= limit
        {
            return Err(Busy);
        }
        Ok(self.run(Lane::People, work))
    }

    fn push<T, F>(&self, lane: Lane, work: F, done: oneshot::Sender<T>)
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let job: Job = Box::new(move || {
            let _ = done.send(work());
        });
        let mut queues = self.shared.queues.lock().expect("not poisoned");
        match lane {
            Lane::People => queues.people.push_back(job),
            Lane::Engines => queues.engines.push_back(job),
        }
        drop(queues);
        self.shared.ready.notify_one();
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
    use std::{
        sync::atomic::{AtomicUsize, Ordering},
        time::Duration,
    };

    use super::*;

    #[tokio::test]
    async fn runs_jobs_on_at_most_its_threads() {
        let pool = EnginePool::new(2);
        let running = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let mut results = Vec::new();
        for index in 0..8 {
            let (running, most) = (Arc::clone(&running), Arc::clone(&most));
            results.push(pool.run(Lane::People, move || {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                thread::sleep(Duration::from_millis(20));
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

    /// Engine games that never finish still leave a thread to people.
    #[tokio::test]
    async fn engine_games_never_hold_every_thread() {
        let pool = EnginePool::new(2);
        let (release, released) = std::sync::mpsc::channel::<()>();
        let released = Arc::new(Mutex::new(released));
        let started = Arc::new(AtomicUsize::new(0));
        let mut engine_jobs = Vec::new();
        for _ in 0..4 {
            let (released, started) = (Arc::clone(&released), Arc::clone(&started));
            engine_jobs.push(pool.run(Lane::Engines, move || {
                started.fetch_add(1, Ordering::SeqCst);
                // Blocks until the test lets it go: a search that takes "forever".
                let _ = released.lock().unwrap().recv();
            }));
        }
        // Once the first has started (and blocks its thread), the other thread may not take
        // another engine job ...
        let waiting = std::time::Instant::now();
        while started.load(Ordering::SeqCst) == 0 {
            assert!(
                waiting.elapsed() < Duration::from_secs(30),
                "the first job starts"
            );
            tokio::task::yield_now().await;
        }
        // ... so a person's job queued after them all runs while they are blocked.
        let person = pool.run(Lane::People, || 42);
        let answer = tokio::time::timeout(Duration::from_secs(30), person)
            .await
            .expect("a person's job is not starved by engine games");
        assert_eq!(answer, Some(42));
        assert_eq!(
            started.load(Ordering::SeqCst),
            1,
            "one engine job at a time on two threads"
        );
        for _ in 0..4 {
            release.send(()).unwrap();
        }
        for job in engine_jobs {
            assert_eq!(job.await, Some(()));
        }
        assert_eq!(started.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    async fn optional_work_is_refused_when_the_queue_is_long() {
        let pool = EnginePool::new(1);
        let (release, released) = std::sync::mpsc::channel::<()>();
        let blocker = pool.run(Lane::People, move || {
            let _ = released.recv();
        });
        // Wait until the thread holds the blocker, so the queue below is what waits.
        while !pool.shared.queues.lock().unwrap().people.is_empty() {
            tokio::task::yield_now().await;
        }
        let waiting: Vec<_> = (0..3)
            .map(|n| pool.try_run(3, move || n).expect("room"))
            .collect();
        assert!(pool.try_run(3, || 0).is_err(), "a fourth waits no more");
        release.send(()).unwrap();
        blocker.await.unwrap();
        let mut values = Vec::new();
        for job in waiting {
            values.push(job.await.unwrap());
        }
        assert_eq!(values, [0, 1, 2]);
        assert!(pool.try_run(3, || 0).is_ok());
    }

    #[tokio::test]
    async fn a_dropped_pool_finishes_what_was_queued() {
        let pool = EnginePool::new(1);
        let jobs: Vec<_> = (0..3).map(|n| pool.run(Lane::Engines, move || n)).collect();
        drop(pool);
        let mut values = Vec::new();
        for job in jobs {
            values.push(job.await);
        }
        assert_eq!(values, [Some(0), Some(1), Some(2)]);
    }
}
