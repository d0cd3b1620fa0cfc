//! Work spread over the machine's cores by rayon's work stealing: files are independent, and differ
//! in size, so idle threads take work from busy ones rather than each owning a fixed share.
//! `for_each_ordered` bounds how many results exist at once and hands them over in input order,
//! which is what lets `crdls check` report file by file in constant memory.

use std::collections::VecDeque;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc;

/// How many items may be in flight (started and not yet handed to the sink) at once, at least: a
/// slow item then stalls the sink but not the workers, which go on with the items after it.
pub const WINDOW: usize = 256;

/// Runs `work` for `0..count` on rayon's threads and calls `sink` on the calling thread with each
/// result in index order, as soon as the results before it are in. At most `window` items are in
/// flight, so at most that many results wait for the sink. A panic in `work` is resumed here.
pub fn for_each_ordered<R: Send>(count: usize, window: usize, work: impl Fn(usize) -> R + Sync, mut sink: impl FnMut(usize, R)) {
    // On one of the pool's own threads, waiting for the others could take the only worker: go in order.
    if rayon::current_thread_index().is_some() {
        (0..count).for_each(|i| sink(i, work(i)));
        return;
    }
    let window = window.max(1);
    let work = &work;
    let (sender, receiver) = mpsc::channel::<(usize, std::thread::Result<R>)>();
    rayon::in_place_scope_fifo(|scope| {
        let (mut started, mut done) = (0, 0);
        // The results of items `done..started`, each `None` until it arrives.
        let mut pending: VecDeque<Option<R>> = VecDeque::new();
        while done < count {
            while started < count && started < done + window {
                let sender = sender.clone();
                let i = started;
                scope.spawn_fifo(move |_| {
                    // The sink is gone only when it panicked, and then nobody waits for this.
                    let _ = sender.send((i, catch_unwind(AssertUnwindSafe(|| work(i)))));
                });
                pending.push_back(None);
                started += 1;
            }
            // Every started item sends exactly once, so this never waits for nothing.
            let (i, result) = receiver.recv().expect("a started item sends its result");
            pending[i - done] = Some(result.unwrap_or_else(|panic| resume_unwind(panic)));
            while let Some(Some(_)) = pending.front() {
                let result = pending.pop_front().flatten().expect("checked");
                sink(done, result);
                done += 1;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn ordered_results_arrive_in_order_with_a_bounded_window() {
        let in_flight = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let mut seen = Vec::new();
        super::for_each_ordered(
            500,
            8,
            |i| {
                let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                // Uneven work, so that later items often finish first.
                let spin = (i * 7919) % 2000;
                std::hint::black_box((0..spin).sum::<usize>());
                i * 3
            },
            |i, r| {
                in_flight.fetch_sub(1, Ordering::SeqCst);
                assert_eq!(r, i * 3);
                seen.push(i);
            },
        );
        assert_eq!(seen, (0..500).collect::<Vec<_>>());
        // Counted from a start to its sink, which lags the work: never more than the window.
        assert!(most.load(Ordering::SeqCst) <= 8, "{} in flight", most.load(Ordering::SeqCst));
        let mut none = Vec::new();
        super::for_each_ordered(0, 8, |i| i, |i, _| none.push(i));
        assert!(none.is_empty());
    }

    #[test]
    fn a_panic_in_the_work_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| super::for_each_ordered(50, 4, |i| assert_ne!(i, 20, "item 20"), |_, ()| {}));
        assert!(caught.is_err());
    }
}
