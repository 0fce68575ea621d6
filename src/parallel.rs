//! Independent per-item work (parsing rule files, rendering rule outputs) spread over the
//! machine's cores, with results in input order so every run stays deterministic. A project of
//! 100,000 rules does this work 100,000 times per run; a small project stays on one thread,
//! since starting threads would cost more than it saves.

/// Fewest items worth a thread of their own: below this the work of one item (tens of
/// microseconds) times the count no longer pays for starting a thread (about 30 µs).
const LEAST_ITEMS_PER_THREAD: usize = 32;

/// Most threads used; more would contend for the same disk and allocator on the small
/// machines this runs on.
const MOST_THREADS: usize = 4;

/// `work` applied to every item of `items`, in the order of `items`. The items are cut into
/// one contiguous run per thread (at most the number of cores, at most [`MOST_THREADS`], at
/// least [`LEAST_ITEMS_PER_THREAD`] items each); the calling thread takes the first run.
///
/// A panic in `work` is resumed on the calling thread once every thread has stopped.
pub(crate) fn map_in_order<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_runs_in_order(items, |run| run.iter().map(&work).collect())
}

/// Like [`map_in_order`], for work that keeps state along a run (for example a folder handle
/// reused while consecutive items lie in the same folder): `work` gets one contiguous run of
/// `items` and returns one result per item of the run, in order.
pub(crate) fn map_runs_in_order<T: Sync, R: Send>(
    items: &[T],
    work: impl Fn(&[T]) -> Vec<R> + Sync,
) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let threads = cores
        .min(MOST_THREADS)
        .min(items.len() / LEAST_ITEMS_PER_THREAD)
        .max(1);
    if threads == 1 {
        return work(items);
    }
    let run_length = items.len().div_ceil(threads);
    let mut runs = items.chunks(run_length);
    let first = runs.next().unwrap_or_default();
    let work = &work;
    // The worker threads do part of this thread's run, so they add to its record of reads.
    let record = crate::confined_fs::record::current();
    std::thread::scope(|scope| {
        let others: Vec<_> = runs
            .map(|run| {
                let record = record.clone();
                scope.spawn(move || crate::confined_fs::record::carry(record, || work(run)))
            })
            .collect();
        let mut results: Vec<R> = work(first);
        results.reserve(items.len() - results.len());
        for other in others {
            match other.join() {
                Ok(part) => results.extend(part),
                Err(payload) => std::panic::resume_unwind(payload),
            }
        }
        results
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_the_input_order_on_any_number_of_threads() {
        for count in [0, 1, 31, 64, 5000] {
            let items: Vec<usize> = (0..count).collect();
            let doubled = map_in_order(&items, |item| item * 2);
            assert_eq!(
                doubled,
                items.iter().map(|item| item * 2).collect::<Vec<_>>()
            );
        }
    }
}
