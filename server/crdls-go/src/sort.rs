//! Go's `sort.Slice`: pattern-defeating quicksort as the Go standard library has run it since 1.19,
//! insertion sort up to 12 elements, heapsort when too many pivots were bad. It is not stable, so the
//! order it leaves equal elements in is part of what users see (CEL's `sortBy` on the API server sorts
//! with it); this port makes the same comparisons and swaps in the same order.

/// Sorts `data` as Go's `sort.Slice(data, less)` does.
pub fn sort_slice<T>(data: &mut [T], less: impl FnMut(&T, &T) -> bool) {
    let length = data.len();
    let limit = (usize::BITS - length.leading_zeros()) as usize;
    let mut sorter = Sorter { data, less };
    sorter.pdqsort(0, length, limit);
}

/// What `choosePivot` learnt about the order of the range.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hint {
    Unknown,
    Increasing,
    Decreasing,
}

struct Sorter<'d, T, F> {
    data: &'d mut [T],
    less: F,
}

impl<T, F: FnMut(&T, &T) -> bool> Sorter<'_, T, F> {
    fn less(&mut self, i: usize, j: usize) -> bool {
        (self.less)(&self.data[i], &self.data[j])
    }

    fn swap(&mut self, i: usize, j: usize) {
        self.data.swap(i, j);
    }

    fn insertion_sort(&mut self, a: usize, b: usize) {
        for i in a + 1..b {
            let mut j = i;
            while j > a && self.less(j, j - 1) {
                self.swap(j, j - 1);
                j -= 1;
            }
        }
    }

    /// Restores the heap property of `data[first + lo .. first + hi]` from `lo` down.
    fn sift_down(&mut self, lo: usize, hi: usize, first: usize) {
        let mut root = lo;
        loop {
            let mut child = 2 * root + 1;
            if child >= hi {
                return;
            }
            if child + 1 < hi && self.less(first + child, first + child + 1) {
                child += 1;
            }
            if !self.less(first + root, first + child) {
                return;
            }
            self.swap(first + root, first + child);
            root = child;
        }
    }

    fn heap_sort(&mut self, a: usize, b: usize) {
        let (first, hi) = (a, b - a);
        for i in (0..=(hi - 1) / 2).rev() {
            self.sift_down(i, hi, first);
        }
        for i in (0..hi).rev() {
            self.swap(first, first + i);
            self.sift_down(0, i, first);
        }
    }

    /// Sorts `data[a..b]`; `limit` is how many bad pivots are allowed before heapsort takes over.
    fn pdqsort(&mut self, mut a: usize, mut b: usize, mut limit: usize) {
        const MAX_INSERTION: usize = 12;
        let (mut was_balanced, mut was_partitioned) = (true, true);
        loop {
            let length = b - a;
            if length <= MAX_INSERTION {
                self.insertion_sort(a, b);
                return;
            }
            if limit == 0 {
                self.heap_sort(a, b);
                return;
            }
            if !was_balanced {
                self.break_patterns(a, b);
                limit -= 1;
            }
            let (mut pivot, mut hint) = self.choose_pivot(a, b);
            if hint == Hint::Decreasing {
                self.reverse_range(a, b);
                pivot = (b - 1) - (pivot - a);
                hint = Hint::Increasing;
            }
            if was_balanced && was_partitioned && hint == Hint::Increasing && self.partial_insertion_sort(a, b) {
                return;
            }
            // Many elements equal to the pivot: put them first and go on with the greater ones.
            if a > 0 && !self.less(a - 1, pivot) {
                a = self.partition_equal(a, b, pivot);
                continue;
            }
            let (mid, already_partitioned) = self.partition(a, b, pivot);
            was_partitioned = already_partitioned;
            let (left, right) = (mid - a, b - mid);
            let threshold = length / 8;
            if left < right {
                was_balanced = left >= threshold;
                self.pdqsort(a, mid, limit);
                a = mid + 1;
            } else {
                was_balanced = right >= threshold;
                self.pdqsort(mid + 1, b, limit);
                b = mid;
            }
        }
    }

    /// One quicksort partition around `data[pivot]`: smaller elements before its new place, the
    /// others after. Returns the new place and whether nothing had to move.
    fn partition(&mut self, a: usize, b: usize, pivot: usize) -> (usize, bool) {
        self.swap(a, pivot);
        let (mut i, mut j) = (a + 1, b - 1);
        while i <= j && self.less(i, a) {
            i += 1;
        }
        while i <= j && !self.less(j, a) {
            j -= 1;
        }
        if i > j {
            self.swap(j, a);
            return (j, true);
        }
        self.swap(i, j);
        i += 1;
        j -= 1;
        loop {
            while i <= j && self.less(i, a) {
                i += 1;
            }
            while i <= j && !self.less(j, a) {
                j -= 1;
            }
            if i > j {
                break;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
        self.swap(j, a);
        (j, false)
    }

    /// Puts the elements equal to `data[pivot]` before the greater ones (there are no smaller ones).
    fn partition_equal(&mut self, a: usize, b: usize, pivot: usize) -> usize {
        self.swap(a, pivot);
        let (mut i, mut j) = (a + 1, b - 1);
        loop {
            while i <= j && !self.less(a, i) {
                i += 1;
            }
            while i <= j && self.less(a, j) {
                j -= 1;
            }
            if i > j {
                return i;
            }
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }

    /// Moves a few out-of-order neighbours into place; true when the range ends up sorted.
    fn partial_insertion_sort(&mut self, a: usize, b: usize) -> bool {
        const MAX_STEPS: usize = 5;
        const SHORTEST_SHIFTING: usize = 50;
        let mut i = a + 1;
        for _ in 0..MAX_STEPS {
            while i < b && !self.less(i, i - 1) {
                i += 1;
            }
            if i == b {
                return true;
            }
            if b - a < SHORTEST_SHIFTING {
                return false;
            }
            self.swap(i, i - 1);
            // The smaller one goes left (down to index 1 of the whole slice, as Go writes it).
            if i - a >= 2 {
                let mut j = i - 1;
                while j >= 1 && self.less(j, j - 1) {
                    self.swap(j, j - 1);
                    j -= 1;
                }
            }
            // The greater one goes right.
            if b - i >= 2 {
                let mut j = i + 1;
                while j < b && self.less(j, j - 1) {
                    self.swap(j, j - 1);
                    j += 1;
                }
            }
        }
        false
    }

    /// Swaps three elements in the middle with pseudo-random others, seeded by the length.
    fn break_patterns(&mut self, a: usize, b: usize) {
        let length = b - a;
        if length < 8 {
            return;
        }
        let mut random = length as u64;
        let modulus = 1usize << (usize::BITS - length.leading_zeros());
        let middle = a + (length / 4) * 2;
        for idx in middle - 1..=middle + 1 {
            random ^= random << 13;
            random ^= random >> 7;
            random ^= random << 17;
            let mut other = (random as usize) & (modulus - 1);
            if other >= length {
                other -= length;
            }
            self.swap(idx, a + other);
        }
    }

    /// A pivot for `data[a..b]`: the middle under 8 elements, a median of three under 50, else
    /// Tukey's ninther; and what the comparisons said about the order.
    fn choose_pivot(&mut self, a: usize, b: usize) -> (usize, Hint) {
        const SHORTEST_NINTHER: usize = 50;
        const MAX_SWAPS: usize = 4 * 3;
        let l = b - a;
        let mut swaps = 0;
        let (mut i, mut j, mut k) = (a + l / 4, a + l / 4 * 2, a + l / 4 * 3);
        if l >= 8 {
            if l >= SHORTEST_NINTHER {
                i = self.median(i - 1, i, i + 1, &mut swaps);
                j = self.median(j - 1, j, j + 1, &mut swaps);
                k = self.median(k - 1, k, k + 1, &mut swaps);
            }
            j = self.median(i, j, k, &mut swaps);
        }
        let hint = match swaps {
            0 => Hint::Increasing,
            MAX_SWAPS => Hint::Decreasing,
            _ => Hint::Unknown,
        };
        (j, hint)
    }

    /// `(a, b)` or `(b, a)`, the smaller first, counting a swap.
    fn order2(&mut self, a: usize, b: usize, swaps: &mut usize) -> (usize, usize) {
        if self.less(b, a) {
            *swaps += 1;
            return (b, a);
        }
        (a, b)
    }

    /// The index of the median of three elements.
    fn median(&mut self, a: usize, b: usize, c: usize, swaps: &mut usize) -> usize {
        let (a, b) = self.order2(a, b, swaps);
        let (b, _) = self.order2(b, c, swaps);
        let (_, b) = self.order2(a, b, swaps);
        b
    }

    fn reverse_range(&mut self, a: usize, b: usize) {
        let (mut i, mut j) = (a, b - 1);
        while i < j {
            self.swap(i, j);
            i += 1;
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic scramble of `0..n` with many repeated keys.
    fn keys(n: usize, distinct: usize) -> Vec<(usize, usize)> {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        (0..n)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                ((state % distinct as u64) as usize, i)
            })
            .collect()
    }

    #[test]
    fn sorts_every_shape_the_algorithm_branches_on() {
        for n in [0, 1, 2, 12, 13, 49, 50, 51, 200, 1000] {
            for distinct in [1, 3, 1000] {
                let shapes: [Vec<(usize, usize)>; 3] =
                    [keys(n, distinct), (0..n).map(|i| (i % distinct, i)).collect(), (0..n).rev().map(|i| (i, i)).collect()];
                for mut data in shapes {
                    sort_slice(&mut data, |x, y| x.0 < y.0);
                    assert!(data.windows(2).all(|w| w[0].0 <= w[1].0), "n={n} distinct={distinct}");
                    let mut seen: Vec<usize> = data.iter().map(|p| p.1).collect();
                    seen.sort_unstable();
                    assert!(seen.iter().copied().eq(0..n), "a permutation");
                }
            }
        }
    }

    #[test]
    fn short_slices_keep_equal_elements_in_order() {
        let mut data = vec![(2, 'a'), (1, 'b'), (2, 'c'), (1, 'd'), (0, 'e')];
        sort_slice(&mut data, |x, y| x.0 < y.0);
        assert_eq!(data.iter().map(|p| p.1).collect::<String>(), "ebdac");
    }
}
