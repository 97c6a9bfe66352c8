//! Ordered parallel work: the pool's threads take items and work on them, and the results are
//! handed on in input order, each as soon as the items before it are handed on, by the thread
//! that finished the last one missing. Nothing waits at batch ends: a thread that finishes an
//! item takes the next one, and writing overlaps the work on later items.
//!
//! Memory stays bounded by two limits, measured in item weights (file sizes):
//! - an item is taken in order only while the items from the next one to hand on up to it
//!   weigh at most `window` (or it is that next one), so few results wait for their turn;
//! - "heavy" items (large files, whose syntax trees cost tens of bytes per source byte) go to
//!   the first few threads only ([`Plan::heavy_workers`]): each thread's allocator keeps its
//!   own high-water mark, so spreading heavy items over every thread of a large machine would
//!   multiply the peak memory of the run by its thread count; a few threads keep it a small
//!   constant while a corpus of large files (CSS themes, generated code) is still worked on in
//!   parallel. So that the first thread does not end up working through them alone at the
//!   end, it takes the next heavy item as soon as the item is within [`LOOKAHEAD`] windows of
//!   the next one to hand on, before the light items in order; the other heavy workers take
//!   one only when no light item can be taken (none left, or the window full), so that a few
//!   large files among many small ones stay on one thread; the other threads skip heavy items.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// How many windows ahead of the next item to hand on the first thread takes heavy items.
const LOOKAHEAD: u64 = 4;

/// What the threads share: which items are taken, which handed on.
struct State {
    /// The first light item not taken yet (or past the end).
    next: usize,
    /// Index into the heavy items of the first one not taken yet.
    next_heavy: usize,
    /// Items handed on: all before this index.
    done: usize,
    /// Workers waiting for the window to move.
    waiting: usize,
    /// Set when the receiver stopped (it failed) or a worker panicked: take nothing more.
    stop: bool,
}

/// How a run may take items: their weights as running sums, which are heavy, and the window.
pub struct Plan {
    /// `before[i]`: the weight of the items before `i` (`len + 1` sums).
    before: Vec<u64>,
    is_heavy: Vec<bool>,
    /// The heavy items, in order.
    heavy: Vec<usize>,
    window: u64,
    /// How many threads (the first ones) take heavy items.
    heavy_workers: usize,
}

impl Plan {
    /// A plan for items given as (weight, heavy), taken within `window` of the next result to
    /// hand on.
    pub fn new(window: u64, items: impl IntoIterator<Item = (u64, bool)>) -> Self {
        let mut before = vec![0];
        let mut is_heavy = Vec::new();
        for (weight, heavy) in items {
            before.push(before[before.len() - 1] + weight);
            is_heavy.push(heavy);
        }
        let heavy = (0..is_heavy.len()).filter(|&i| is_heavy[i]).collect();
        Self { before, is_heavy, heavy, window, heavy_workers: 1 }
    }

    /// Lets the first `n` threads (at least one) take heavy items; one by default.
    #[must_use]
    pub fn heavy_workers(mut self, n: usize) -> Self {
        self.heavy_workers = n.max(1);
        self
    }

    /// The weight of items `from..=to`.
    fn span(&self, from: usize, to: usize) -> u64 {
        self.before[to + 1] - self.before[from]
    }
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    plan: Plan,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // No user code runs under the lock, so a panic elsewhere leaves the state consistent.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The next item for worker `me`, or `None` when none is left for it (or the run stopped).
    fn take(&self, me: usize) -> Option<usize> {
        let plan = &self.plan;
        let len = plan.is_heavy.len();
        let mut state = self.lock();
        loop {
            if state.stop {
                return None;
            }
            let takes_heavy = me < plan.heavy_workers;
            // The next heavy item, if it is within reach.
            let heavy = plan.heavy.get(state.next_heavy).copied().filter(|&h| {
                h == state.done || plan.span(state.done, h) <= plan.window.saturating_mul(LOOKAHEAD)
            });
            // The first worker takes a heavy item as soon as it is within reach; the other heavy
            // workers only when no light item can be taken now, so that a corpus of a few large
            // files among many small ones keeps them on one thread (and its memory).
            if me == 0
                && let Some(h) = heavy
            {
                state.next_heavy += 1;
                return Some(h);
            }
            while state.next < len && plan.is_heavy[state.next] {
                state.next += 1;
            }
            let i = state.next;
            if i < len && (i == state.done || plan.span(state.done, i) <= plan.window) {
                state.next += 1;
                return Some(i);
            }
            if takes_heavy && let Some(h) = heavy {
                state.next_heavy += 1;
                return Some(h);
            }
            if i >= len && (!takes_heavy || state.next_heavy == plan.heavy.len()) {
                return None;
            }
            // Wait for results to be handed on: that moves the window.
            state.waiting += 1;
            state = self.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
            state.waiting -= 1;
        }
    }

    fn set(&self, f: impl FnOnce(&mut State)) {
        f(&mut self.lock());
        self.changed.notify_all();
    }

    /// Records that the items before `done` are handed on, waking the workers that wait for
    /// the window to move (two workers that hand on results may get here in either order).
    fn advance(&self, done: usize) {
        let mut state = self.lock();
        state.done = state.done.max(done);
        if state.waiting > 0 {
            drop(state);
            self.changed.notify_all();
        }
    }
}

/// Stops the run if a worker unwinds (in `work` or in `receive`), so that no thread waits for
/// the other.
struct StopOnPanic<'a>(&'a Shared);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.set(|s| s.stop = true);
        }
    }
}

/// The receiving side: results that arrived before their turn, and the receiver.
struct Out<R, F, E> {
    /// Results not yet received, at `index - done`.
    early: VecDeque<Option<R>>,
    /// Items received: all before this index.
    done: usize,
    receive: F,
    error: Option<E>,
}

/// Stack of each worker thread. Decoders and converters this crate calls walk nested input
/// recursively (htmd's HTML conversion takes about 1.4 KiB of stack per nested element in a
/// release build, and overflowed the 2 MiB of a default thread at 1,500 nested `<div>`s; a
/// stack overflow aborts the whole run, which no `catch_unwind` can stop). Inputs are bounded
/// before they get there (`decode/html.rs`), and this is the margin behind the bounds: address
/// space reserved, not memory, until a thread touches it.
pub const WORKER_STACK_BYTES: usize = 16 << 20;

/// A pool of `threads` worker threads (at least one) with [`WORKER_STACK_BYTES`] of stack.
pub fn worker_pool(threads: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .stack_size(WORKER_STACK_BYTES)
        .build()
}

/// Runs `work` on each of `items` on `pool`'s threads, each thread with its own context from
/// `context`, and calls `receive` with each result in input order. Items are taken as `plan`
/// says (one entry per item): within its window of the next to receive, and heavy items on the
/// plan's first threads only, up to [`LOOKAHEAD`] windows early. Stops at the first error of `receive`.
///
/// `receive` runs on the worker that finishes the next result in order, under a lock, for that
/// result and the ones after it that are ready: no thread waits to write, and no thread is
/// woken for each result (on a virtual machine each such wake-up costs microseconds of CPU).
/// The calling thread must not be one of `pool`'s.
pub fn run_ordered<T, R, C, E>(
    pool: &rayon::ThreadPool,
    items: &[T],
    plan: Plan,
    context: impl Fn() -> C + Sync,
    work: impl Fn(&mut C, &T) -> R + Sync,
    receive: impl FnMut(R) -> Result<(), E> + Send,
) -> Result<(), E>
where
    T: Sync,
    R: Send,
    E: Send,
{
    assert_eq!(plan.is_heavy.len(), items.len(), "one plan entry per item");
    debug_assert!(pool.current_thread_index().is_none(), "called from one of the pool's threads");
    let shared = Shared {
        state: Mutex::new(State { next: 0, next_heavy: 0, done: 0, waiting: 0, stop: false }),
        changed: Condvar::new(),
        plan,
    };
    let out = Mutex::new(Out { early: VecDeque::new(), done: 0, receive, error: None });
    pool.in_place_scope(|scope| {
        for me in 0..pool.current_num_threads().max(1) {
            let (shared, out, context, work) = (&shared, &out, &context, &work);
            scope.spawn(move |_| {
                let _guard = StopOnPanic(shared);
                let mut ctx = context();
                while let Some(i) = shared.take(me) {
                    let result = work(&mut ctx, &items[i]);
                    // A poisoned lock means `receive` panicked: the run is over.
                    let Ok(mut out) = out.lock() else { return };
                    let out = &mut *out;
                    if out.error.is_some() {
                        return;
                    }
                    let at = i - out.done;
                    if out.early.len() <= at {
                        out.early.resize_with(at + 1, || None);
                    }
                    out.early[at] = Some(result);
                    if at > 0 {
                        // The worker that finishes the next result receives this one too.
                        continue;
                    }
                    while let Some(next) = out.early.front_mut().and_then(Option::take) {
                        out.early.pop_front();
                        out.done += 1;
                        if let Err(err) = (out.receive)(next) {
                            out.error = Some(err);
                            shared.set(|s| s.stop = true);
                            return;
                        }
                    }
                    let done = out.done;
                    shared.advance(done);
                }
            });
        }
    });
    match out.into_inner() {
        Ok(Out { error: Some(err), .. }) => Err(err),
        // A panic in `receive` poisons the lock, and the scope has passed it on already.
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(threads: usize) -> rayon::ThreadPool {
        worker_pool(threads).expect("a pool")
    }

    /// Uneven work, so that later items often finish first.
    fn busy(x: u64) -> u64 {
        (0..(x * 7919) % 5000).fold(x, |a, b| a.wrapping_mul(31).wrapping_add(b))
    }

    #[test]
    fn results_come_in_input_order_at_any_thread_count() {
        let items: Vec<u64> = (0..500).collect();
        let want: Vec<(u64, u64)> = items.iter().map(|&x| (x, busy(x))).collect();
        for threads in [1, 2, 4] {
            for window in [1, 3, 64] {
                let mut seen = Vec::new();
                let res: Result<(), ()> = run_ordered(
                    &pool(threads),
                    &items,
                    Plan::new(window, items.iter().map(|x| (1, x % 7 == 0))),
                    || (),
                    |(), &x| (x, busy(x)),
                    |r| {
                        seen.push(r);
                        Ok(())
                    },
                );
                assert_eq!(res, Ok(()));
                assert_eq!(seen, want, "threads {threads}, window {window}");
            }
        }
    }

    #[test]
    fn the_window_bounds_the_results_that_wait() {
        use std::sync::atomic::{AtomicU64, Ordering};
        let items: Vec<u64> = (0..400).collect();
        // Weights 1–3; a window of 6 lets an item start only within 6 of the next to receive.
        let weight = |&x: &u64| x % 3 + 1;
        let received_weight = AtomicU64::new(0);
        let before: Vec<u64> = items
            .iter()
            .scan(0, |sum, x| {
                let at = *sum;
                *sum += weight(x);
                Some(at)
            })
            .collect();
        let res: Result<(), ()> = run_ordered(
            &pool(3),
            &items,
            Plan::new(6, items.iter().map(|x| (weight(x), false))),
            || (),
            |(), &x| {
                // What lies between the next item to receive and this one, this one included,
                // fits the window (at most what lay there when the item was taken).
                let waiting = before[x as usize] - received_weight.load(Ordering::SeqCst);
                assert!(waiting == 0 || waiting + weight(&x) <= 6, "item {x}: {waiting} ahead");
                busy(x)
            },
            |_| {
                let n = received_weight.load(Ordering::SeqCst);
                let next = before.iter().position(|&b| b == n).expect("an item starts there");
                received_weight.store(n + weight(&items[next]), Ordering::SeqCst);
                Ok(())
            },
        );
        assert_eq!(res, Ok(()));
        assert_eq!(received_weight.into_inner(), items.iter().map(weight).sum::<u64>());
    }

    #[test]
    fn heavy_items_all_run_on_one_thread() {
        let items: Vec<usize> = (0..300).collect();
        let mut threads_of_heavy = std::collections::BTreeSet::new();
        let res: Result<(), ()> = run_ordered(
            &pool(3),
            &items,
            Plan::new(16, items.iter().map(|x| (1, x % 5 == 0))),
            || (),
            |(), &x| (x, std::thread::current().id()),
            |(x, id)| {
                if x % 5 == 0 {
                    threads_of_heavy.insert(format!("{id:?}"));
                }
                Ok(())
            },
        );
        assert_eq!(res, Ok(()));
        assert_eq!(threads_of_heavy.len(), 1, "{threads_of_heavy:?}");
    }

    #[test]
    fn heavy_items_run_on_the_first_threads_only_and_in_parallel() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        // Every item heavy and slow enough to overlap: with two heavy workers of four threads,
        // two threads share them, and at some moment both work on one at once.
        let items: Vec<u64> = (0..200).collect();
        let (running, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let mut threads_of_heavy = std::collections::BTreeSet::new();
        let res: Result<(), ()> = run_ordered(
            &pool(4),
            &items,
            Plan::new(1000, items.iter().map(|_| (1, true))).heavy_workers(2),
            || (),
            |(), &x| {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(2));
                running.fetch_sub(1, Ordering::SeqCst);
                (x, std::thread::current().id())
            },
            |(_, id)| {
                threads_of_heavy.insert(format!("{id:?}"));
                Ok(())
            },
        );
        assert_eq!(res, Ok(()));
        assert_eq!(threads_of_heavy.len(), 2, "{threads_of_heavy:?}");
        assert_eq!(most.into_inner(), 2, "two heavy items at once, never more");
    }

    #[test]
    fn heavy_items_start_early_within_the_lookahead() {
        // Light items weigh 1, the heavy ones (every 40th) 10; window 20, so heavy items within
        // 80 of the next item to receive may start.
        let items: Vec<u64> = (0..400).collect();
        let weight = |&x: &u64| if x % 40 == 39 { 10 } else { 1 };
        let res: Result<(), ()> = run_ordered(
            &pool(2),
            &items,
            Plan::new(20, items.iter().map(|x| (weight(x), x % 40 == 39))),
            || 0u32,
            |taken, &x| {
                *taken += 1;
                (x, *taken)
            },
            |(x, taken)| {
                // The first thread starts with item 39, the first heavy one, which lies within
                // the lookahead of item 0.
                if x == 39 {
                    assert_eq!(taken, 1);
                }
                Ok(())
            },
        );
        assert_eq!(res, Ok(()));
    }

    #[test]
    fn an_error_stops_the_run_and_is_returned() {
        let items: Vec<usize> = (0..10_000).collect();
        let mut received = 0;
        let res = run_ordered(
            &pool(2),
            &items,
            Plan::new(8, items.iter().map(|_| (1, false))),
            || (),
            |(), &x| x,
            |x| {
                received += 1;
                if x == 100 { Err(x) } else { Ok(()) }
            },
        );
        assert_eq!(res, Err(100));
        assert_eq!(received, 101);
    }

    #[test]
    fn no_items_give_no_results() {
        let items: Vec<u8> = Vec::new();
        let res: Result<(), ()> = run_ordered(
            &pool(2),
            &items,
            Plan::new(4, items.iter().map(|_| (1, true))),
            || (),
            |(), &x| x,
            |_| panic!("no result expected"),
        );
        assert_eq!(res, Ok(()));
    }

    /// Whether a run of light items with a panic in `work` at item `in_work` or in `receive`
    /// at item `in_receive` returns (as it must) with the panic, instead of hanging.
    fn panic_reaches_the_caller(
        threads: usize,
        window: u64,
        in_work: usize,
        in_receive: usize,
    ) -> bool {
        let items: Vec<usize> = (0..200).collect();
        std::panic::catch_unwind(|| {
            let _: Result<(), ()> = run_ordered(
                &pool(threads),
                &items,
                Plan::new(window, items.iter().map(|_| (1, false))),
                || (),
                |(), &x| {
                    assert!(x != in_work, "item {x} fails in work");
                    x
                },
                |x| {
                    assert!(x != in_receive, "item {x} fails in receive");
                    Ok(())
                },
            );
        })
        .is_err()
    }

    #[test]
    fn a_panicking_receiver_does_not_hang_the_workers() {
        // A window of one item: workers wait for each result to be received.
        assert!(panic_reaches_the_caller(4, 1, usize::MAX, 2));
    }

    #[test]
    fn a_panicking_worker_does_not_hang_the_others() {
        assert!(panic_reaches_the_caller(2, 4, 50, usize::MAX));
    }
}
