//! App. A: after a batch event, try every order of the first k tasks of a machine's virtual
//! queue and keep the one whose k tasks earn the most, starting back to back from the
//! machine's ready time. Orders are tried in lexicographic order from the heuristic's own,
//! and only a strictly better sum replaces it, so equal sums keep the heuristic's order.

use crate::units::Micros;

/// The most tasks App. A permutes (it tries 2, 3 and 5).
pub(crate) const MAX_PERMUTE: usize = 5;

/// Reorders `tasks` (at most [`MAX_PERMUTE`]) to the order of highest total utility when
/// they run back to back from `start`.
pub(crate) fn best_order(
    tasks: &mut [u32],
    start: Micros,
    etc: impl Fn(u32) -> Micros,
    utility: impl Fn(u32, Micros) -> f64,
) {
    let k = tasks.len().min(MAX_PERMUTE);
    if k < 2 {
        return;
    }
    let mut idx = [0usize, 1, 2, 3, 4];
    let sum = |idx: &[usize]| {
        let mut t = start;
        let mut s = 0.0;
        for &i in &idx[..k] {
            t = t.saturating_add(etc(tasks[i]));
            s += utility(tasks[i], t);
        }
        s
    };
    let mut best = idx;
    let mut best_sum = sum(&idx);
    while next_permutation(&mut idx[..k]) {
        let s = sum(&idx);
        if s > best_sum {
            best_sum = s;
            best = idx;
        }
    }
    let orig = [
        tasks[0],
        tasks[1],
        *tasks.get(2).unwrap_or(&0),
        *tasks.get(3).unwrap_or(&0),
        *tasks.get(4).unwrap_or(&0),
    ];
    for p in 0..k {
        tasks[p] = orig[best[p]];
    }
}

/// The next lexicographic permutation; false after the last.
fn next_permutation(a: &mut [usize]) -> bool {
    let n = a.len();
    let Some(i) = (0..n.saturating_sub(1)).rev().find(|&i| a[i] < a[i + 1]) else {
        return false;
    };
    let j = (i + 1..n).rev().find(|&j| a[j] > a[i]).unwrap_or(i + 1);
    a.swap(i, j);
    a[i + 1..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. A.1: task 0 is worth more but decays slowly, task 1 less but falls off a cliff
    /// after 15 us; running 1 first earns more.
    #[test]
    fn a_quickly_decaying_task_goes_first() {
        let etc = |_| Micros(10);
        let util = |t: u32, c: Micros| match t {
            0 => 5.0 - c.0 as f64 * 0.01,
            _ => {
                if c.0 <= 15 {
                    3.0
                } else {
                    0.0
                }
            }
        };
        let mut ts = [0u32, 1];
        best_order(&mut ts, Micros(0), etc, util);
        // 1 then 0: 3 + 4.8 = 7.8 > 0 then 1: 4.9 + 0.
        assert_eq!(ts, [1, 0]);
    }

    #[test]
    fn ties_keep_the_heuristics_order_and_all_orders_are_tried() {
        let mut ts = [7u32, 3, 9];
        best_order(&mut ts, Micros(0), |_| Micros(1), |_, _| 1.0);
        assert_eq!(ts, [7, 3, 9]);
        let mut a = [0usize, 1, 2, 3];
        let mut n = 1;
        while next_permutation(&mut a) {
            n += 1;
        }
        assert_eq!(n, 24);
    }
}
