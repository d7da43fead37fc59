//! A bounded pool for engine work (moves, hints, evaluations): as many threads as cores,
//! each at a lower scheduling priority than the threads that answer people, so a machine
//! busy with searches still answers requests first.
//!
//! Work comes in two lanes. [`Lane::People`] is what a person waits for (the engine's reply
//! in a game with a person in it, a hint, the graph of such a game); [`Lane::Engines`] is
//! games between engines. A free thread always takes people's work first, and engine games
//! never hold more than all threads but one (when there are two or more), so however many
//! engine games are being watched, a person's job waits at most for other people's jobs.
//!
//! Within a lane the pool is fair between [`Client`]s: each client's jobs wait in a queue
//! of their own, a client has at most one job running at a time, and a free thread takes
//! the client that has been ready longest (a client whose job finishes goes to the back).
//! However many games one client keeps busy, another's job waits for at most one job of
//! each client ahead of it, and never for a queue that one client filled.

use std::{
    collections::{HashMap, HashSet, VecDeque},
    sync::{Arc, Condvar, Mutex},
    thread,
    time::{Duration, Instant},
};

use serde::Serialize;
use tokio::sync::oneshot;

use super::client::Client;

/// A job for the pool.
type Job = Box<dyn FnOnce() + Send>;

/// How much lower than normal the engine threads run (Unix `nice`).
const NICENESS: i32 = 10;

/// A client ready this long without a thread means the pool is saturated (see
/// [`EnginePool::load`]): longer than a guest's longest move.
pub const SATURATED_AFTER: Duration = Duration::from_secs(10);

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

/// One lane's waiting jobs, a queue per client.
#[derive(Default)]
struct Fair {
    jobs: HashMap<Client, VecDeque<Job>>,
    /// Clients with jobs waiting and none running, in the order they became ready, with
    /// when.
    ready: VecDeque<(Client, Instant)>,
    /// Jobs waiting in all.
    waiting: usize,
}

impl Fair {
    fn push(&mut self, client: Client, job: Job, running: bool) {
        self.jobs.entry(client.clone()).or_default().push_back(job);
        self.waiting += 1;
        if !running {
            self.make_ready(client);
        }
    }

    fn make_ready(&mut self, client: Client) {
        if !self.ready.iter().any(|(ready, _)| *ready == client) {
            self.ready.push_back((client, Instant::now()));
        }
    }

    /// The job of the client ready longest that has none running (in the other lane).
    fn pop(&mut self, running: &HashSet<Client>) -> Option<(Client, Job)> {
        let index = self
            .ready
            .iter()
            .position(|(client, _)| !running.contains(client))?;
        let (client, _) = self.ready.remove(index).expect("found");
        let queue = self.jobs.get_mut(&client).expect("a ready client has jobs");
        let job = queue.pop_front().expect("a ready client has jobs");
        if queue.is_empty() {
            self.jobs.remove(&client);
        }
        self.waiting -= 1;
        Some((client, job))
    }

    /// `client`'s job ended: it is ready again if it has more.
    fn finished(&mut self, client: &Client) {
        if self.jobs.contains_key(client) {
            self.make_ready(client.clone());
        }
    }

    fn waiting_for(&self, client: &Client) -> usize {
        self.jobs.get(client).map_or(0, VecDeque::len)
    }

    /// How long the client at the head has been ready.
    fn longest_ready(&self) -> Duration {
        self.ready
            .front()
            .map_or(Duration::ZERO, |(_, since)| since.elapsed())
    }
}

#[derive(Default)]
struct Queues {
    people: Fair,
    engines: Fair,
    /// Clients with a job running (one each).
    running: HashSet<Client>,
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
    fn next(&self) -> Option<(Job, Lane, Client)> {
        let mut guard = self.queues.lock().expect("not poisoned");
        loop {
            let queues = &mut *guard;
            if let Some((client, job)) = queues.people.pop(&queues.running) {
                queues.running.insert(client.clone());
                return Some((job, Lane::People, client));
            }
            if queues.engines_running < self.engine_threads
                && let Some((client, job)) = queues.engines.pop(&queues.running)
            {
                queues.engines_running += 1;
                queues.running.insert(client.clone());
                return Some((job, Lane::Engines, client));
            }
            if queues.closed && queues.people.waiting == 0 && queues.engines.waiting == 0 {
                return None;
            }
            guard = self.ready.wait(guard).expect("not poisoned");
        }
    }

    fn finished(&self, lane: Lane, client: &Client) {
        let mut queues = self.queues.lock().expect("not poisoned");
        if lane == Lane::Engines {
            queues.engines_running -= 1;
        }
        queues.running.remove(client);
        queues.people.finished(client);
        queues.engines.finished(client);
        drop(queues);
        // A client (or an engine slot) is free again: any waiting thread may go.
        self.ready.notify_all();
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
    saturated_after: Duration,
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
                    while let Some((job, lane, client)) = shared.next() {
                        job();
                        shared.finished(lane, &client);
                    }
                })
                .expect("a thread can be started");
        }
        EnginePool {
            _closer: Arc::new(Closer(Arc::clone(&shared))),
            shared,
            size,
            saturated_after: SATURATED_AFTER,
        }
    }

    /// The pool with another threshold for [`Load::saturated`].
    #[cfg(test)]
    fn saturated_after(self, wait: Duration) -> EnginePool {
        EnginePool {
            saturated_after: wait,
            ..self
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

    /// Queues `work` in `lane` for `client` at once; the future is its result, or `None`
    /// if the pool stopped first.
    pub fn run<T, F>(
        &self,
        lane: Lane,
        client: Client,
        work: F,
    ) -> impl Future<Output = Option<T>> + use<T, F>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (done, result) = oneshot::channel();
        self.push(lane, client, work, done);
        async move { result.await.ok() }
    }

    /// Like [`EnginePool::run`] in the people's lane, for work nobody's game waits on (a
    /// hint): refused with [`Busy`] when `limit` clients are ahead of it (it would wait for
    /// a job of each), or `client` has `each` jobs waiting, so that requests cannot pile
    /// up without end.
    ///
    /// # Errors
    /// [`Busy`] when the queue is that long.
    pub fn try_run<T, F>(
        &self,
        limit: usize,
        each: usize,
        client: Client,
        work: F,
    ) -> Result<impl Future<Output = Option<T>> + use<T, F>, Busy>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        {
            let queues = self.shared.queues.lock().expect("not poisoned");
            if queues.people.ready.len() >= limit || queues.people.waiting_for(&client) >= each {
                return Err(Busy);
            }
        }
        Ok(self.run(Lane::People, client, work))
    }

    /// How loaded the pool is now.
    pub fn load(&self) -> Load {
        let queues = self.shared.queues.lock().expect("not poisoned");
        // Games between engines wait for what people leave: their waits say nothing of
        // how long a person waits.
        let longest = queues.people.longest_ready();
        Load {
            threads: self.size,
            running: queues.running.len(),
            waiting: queues.people.waiting + queues.engines.waiting,
            clients_waiting: queues.people.ready.len() + queues.engines.ready.len(),
            longest_wait_ms: longest.as_millis() as u64,
            saturated: longest >= self.saturated_after,
        }
    }

    fn push<T, F>(&self, lane: Lane, client: Client, work: F, done: oneshot::Sender<T>)
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let job: Job = Box::new(move || {
            // Nobody waits for it any more (a visitor who left, a request superseded):
            // skipped, not searched for nobody.
            if done.is_closed() {
                return;
            }
            let _ = done.send(work());
        });
        let mut guard = self.shared.queues.lock().expect("not poisoned");
        let queues = &mut *guard;
        let running = queues.running.contains(&client);
        match lane {
            Lane::People => queues.people.push(client, job, running),
            Lane::Engines => queues.engines.push(client, job, running),
        }
        drop(guard);
        self.shared.ready.notify_all();
    }
}

/// What [`EnginePool::load`] reports (and `/healthz` shows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Load {
    /// Searches at once.
    pub threads: usize,
    /// Jobs running now.
    pub running: usize,
    /// Jobs waiting.
    pub waiting: usize,
    /// Clients with a job ready to run, waiting for a thread.
    pub clients_waiting: usize,
    /// How long the client first in line for people's work has waited for a thread, in
    /// milliseconds.
    pub longest_wait_ms: u64,
    /// A person's work has waited [`SATURATED_AFTER`] (or the pool's own threshold) or
    /// longer for a thread: a newcomer would wait too.
    pub saturated: bool,
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
        for index in 0..8_i64 {
            let (running, most) = (Arc::clone(&running), Arc::clone(&most));
            results.push(pool.run(Lane::People, Client::Member(index), move || {
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
        for index in 0..4 {
            let (released, started) = (Arc::clone(&released), Arc::clone(&started));
            engine_jobs.push(pool.run(Lane::Engines, Client::Member(index), move || {
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
        let person = pool.run(Lane::People, Client::Member(99), || 42);
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
        let blocker = pool.run(Lane::People, Client::Member(99), move || {
            let _ = released.recv();
        });
        // Wait until the thread holds the blocker, so the queue below is what waits.
        while pool.shared.queues.lock().unwrap().people.waiting > 0 {
            tokio::task::yield_now().await;
        }
        let waiting: Vec<_> = (0..3)
            .map(|n| {
                pool.try_run(3, 9, Client::Member(n), move || n)
                    .expect("room")
            })
            .collect();
        assert!(
            pool.try_run(3, 9, Client::Member(7), || 0).is_err(),
            "a fourth waits no more"
        );
        assert!(
            pool.try_run(9, 1, Client::Member(0), || 0).is_err(),
            "a client with as many waiting as it may have waits no more"
        );
        release.send(()).unwrap();
        blocker.await.unwrap();
        let mut values = Vec::new();
        for job in waiting {
            values.push(job.await.unwrap());
        }
        assert_eq!(values, [0, 1, 2]);
        assert!(pool.try_run(3, 9, Client::Member(7), || 0).is_ok());
    }

    #[tokio::test]
    async fn a_dropped_pool_finishes_what_was_queued() {
        let pool = EnginePool::new(1);
        let jobs: Vec<_> = (0..3)
            .map(|n| pool.run(Lane::Engines, Client::Member(n), move || n))
            .collect();
        drop(pool);
        let mut values = Vec::new();
        for job in jobs {
            values.push(job.await);
        }
        assert_eq!(values, [Some(0), Some(1), Some(2)]);
    }

    /// Blocks a pool thread until released; says when it started.
    fn blocker(
        started: &Arc<Mutex<Vec<&'static str>>>,
        name: &'static str,
        release: &Arc<Mutex<std::sync::mpsc::Receiver<()>>>,
    ) -> impl FnOnce() + Send + 'static {
        let (started, release) = (Arc::clone(started), Arc::clone(release));
        move || {
            started.lock().unwrap().push(name);
            let _ = release.lock().unwrap().recv();
        }
    }

    async fn until(what: &str, done: impl Fn() -> bool) {
        let waiting = std::time::Instant::now();
        while !done() {
            assert!(waiting.elapsed() < Duration::from_secs(30), "{what}");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }

    /// One client's flood of jobs: another client's job, queued after all of them, runs
    /// next, and the flood never has two threads.
    #[tokio::test]
    async fn a_client_that_floods_the_pool_delays_another_by_one_job_at_most() {
        for threads in [1, 2] {
            let pool = EnginePool::new(threads);
            let started = Arc::new(Mutex::new(Vec::new()));
            let (release, released) = std::sync::mpsc::channel::<()>();
            let released = Arc::new(Mutex::new(released));
            let flooder = Client::guest("10.0.0.1".parse().unwrap());
            let victim = Client::guest("10.0.0.2".parse().unwrap());
            let flood: Vec<_> = (0..10)
                .map(|_| {
                    pool.run(
                        Lane::People,
                        flooder.clone(),
                        blocker(&started, "flood", &released),
                    )
                })
                .collect();
            until("the flood starts", || started.lock().unwrap().len() == 1).await;
            let victims_job = pool.run(
                Lane::People,
                victim.clone(),
                blocker(&started, "victim", &released),
            );
            if threads == 2 {
                // The second thread is free for the victim at once: the flooder has one.
                until("the victim starts beside the flood", || {
                    started.lock().unwrap().len() == 2
                })
                .await;
            } else {
                release.send(()).unwrap();
                until("the victim goes next", || {
                    started.lock().unwrap().len() == 2
                })
                .await;
            }
            assert_eq!(*started.lock().unwrap(), ["flood", "victim"], "{threads}");
            let load = pool.load();
            assert_eq!(load.waiting, 9, "{load:?}");
            for _ in 0..11 {
                release.send(()).unwrap();
            }
            victims_job.await.unwrap();
            for job in flood {
                job.await.unwrap();
            }
            assert_eq!(started.lock().unwrap().len(), 11);
            // A job's thread counts it done just after its result is sent.
            until("every thread is free", || pool.load().running == 0).await;
        }
    }

    /// Clients take turns: after a job of each, the first goes again.
    #[tokio::test]
    async fn clients_take_turns_in_the_order_they_became_ready() {
        let pool = EnginePool::new(1);
        let started = Arc::new(Mutex::new(Vec::new()));
        let (release, released) = std::sync::mpsc::channel::<()>();
        let released = Arc::new(Mutex::new(released));
        let first = pool.run(
            Lane::People,
            Client::Member(0),
            blocker(&started, "gate", &released),
        );
        until("the gate holds the thread", || {
            started.lock().unwrap().len() == 1
        })
        .await;
        let mut jobs = Vec::new();
        for (client, name) in [(1, "a1"), (1, "a2"), (2, "b1"), (3, "c1"), (2, "b2")] {
            jobs.push(pool.run(
                Lane::People,
                Client::Member(client),
                blocker(&started, name, &released),
            ));
        }
        for _ in 0..6 {
            release.send(()).unwrap();
        }
        first.await.unwrap();
        for job in jobs {
            job.await.unwrap();
        }
        assert_eq!(
            *started.lock().unwrap(),
            ["gate", "a1", "b1", "c1", "a2", "b2"]
        );
    }

    /// A client waiting long for a thread is what `/healthz` calls saturated.
    #[tokio::test]
    async fn a_client_kept_waiting_makes_the_pool_saturated() {
        let pool = EnginePool::new(1).saturated_after(Duration::from_millis(50));
        let started = Arc::new(Mutex::new(Vec::new()));
        let (release, released) = std::sync::mpsc::channel::<()>();
        let released = Arc::new(Mutex::new(released));
        let hog = pool.run(
            Lane::People,
            Client::Member(1),
            blocker(&started, "hog", &released),
        );
        until("the hog runs", || started.lock().unwrap().len() == 1).await;
        // The hog's own queue is not a wait for anyone else.
        let own = pool.run(
            Lane::People,
            Client::Member(1),
            blocker(&started, "hog again", &released),
        );
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(!pool.load().saturated, "{:?}", pool.load());
        let other = pool.run(
            Lane::People,
            Client::Member(2),
            blocker(&started, "other", &released),
        );
        until("the other has waited", || pool.load().saturated).await;
        let load = pool.load();
        assert_eq!(
            (load.running, load.waiting, load.clients_waiting),
            (1, 2, 1)
        );
        for _ in 0..3 {
            release.send(()).unwrap();
        }
        for job in [hog, own, other] {
            job.await.unwrap();
        }
        assert!(!pool.load().saturated);
    }
}
