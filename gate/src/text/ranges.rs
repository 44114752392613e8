//! Numbers grouped into runs, for writing them short: a changed function's lines as
//! `120..=131, 140..=140`, a code record's positions as `0-3,7`.

use std::ops::{Add, RangeInclusive};

/// `values` as sorted, disjoint, non-adjacent ranges (duplicates dropped).
pub fn ranges<T>(mut values: Vec<T>) -> Vec<RangeInclusive<T>>
where
    T: Copy + Ord + Add<Output = T> + From<u8>,
{
    values.sort_unstable();
    values.dedup();
    let mut ranges: Vec<RangeInclusive<T>> = Vec::new();
    for value in values {
        match ranges.last_mut() {
            // Sorted and deduplicated: `value` is above the end, so the end is below the
            // largest value of `T` and adding one cannot overflow.
            Some(last) if *last.end() + T::from(1) == value => *last = *last.start()..=value,
            _ => ranges.push(value..=value),
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_merged_and_the_rest_kept_apart() {
        assert_eq!(
            ranges(vec![9u32, 1, 2, 3, 3, 7, 10]),
            vec![1..=3, 7..=7, 9..=10]
        );
        assert_eq!(ranges(vec![7u32, 1, 2, 2, 9, 3, 8, 0]), [0..=3, 7..=9]);
        assert_eq!(
            ranges(vec![u32::MAX, u32::MAX - 1]),
            vec![u32::MAX - 1..=u32::MAX]
        );
        assert!(ranges(Vec::<usize>::new()).is_empty());
    }
}
