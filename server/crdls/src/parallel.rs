//! Work spread over the machine's cores with scoped threads: parsing and checking files are
//! independent, so each thread takes a contiguous share of the inputs.

/// Maps `f` over `items` on up to `available_parallelism` threads, keeping the order.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(items.len().max(1));
    if threads <= 1 {
        return items.iter().map(&f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items.chunks(chunk).map(|part| scope.spawn(|| part.iter().map(&f).collect::<Vec<R>>())).collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_order() {
        let items: Vec<u32> = (0..1000).collect();
        assert_eq!(super::map(&items, |i| i * 2), items.iter().map(|i| i * 2).collect::<Vec<_>>());
        assert!(super::map(&Vec::<u32>::new(), |i| *i).is_empty());
    }
}
