use super::*;
use crate::generate::rng::Stream;
use crate::seed002::pareto::problem::tests::spaced;
use crate::seed002::pareto::Objective;
use proptest::prelude::*;

/// The inverse of [`MIX`] modulo 2^64 (Newton's iteration), so that a test can undo the mix.
fn inverse(a: u64) -> u64 {
    let mut x = a;
    for _ in 0..6 {
        x = x.wrapping_mul(2u64.wrapping_sub(a.wrapping_mul(x)));
    }
    x
}

#[test]
fn the_inverse_undoes_the_mix() {
    assert_eq!(MIX.wrapping_mul(inverse(MIX)), 1);
}

proptest! {
    /// A bucket and the bits its word keeps give back the pair, for any task count and any
    /// pair whose key fits: two pairs never share both (the word names its pair exactly),
    /// and a pair whose key does not fit has no bucket.
    #[test]
    fn a_bucket_and_its_bits_are_the_pair(
        tasks in 1usize..=(1 << 31),
        t_frac in 0.0f64..1.0,
        end_bits in 0u32..64,
        end_low in any::<u64>(),
    ) {
        let task_bits = Recent::task_bits(tasks);
        prop_assert!(tasks <= 1 << task_bits && (task_bits == 0 || tasks > 1 << (task_bits - 1)));
        let t = ((tasks as f64 * t_frac) as usize).min(tasks - 1);
        let end = if end_bits == 0 { 0 } else { end_low >> (64 - end_bits) };
        // The key fits when the completion's significant bits and the task's do.
        let fits = (64 - end.leading_zeros()) + task_bits <= KEY_BITS;
        match bucket(Micros(end), t, Recent::keys(tasks)) {
            None => prop_assert!(!fits),
            Some((h, tag)) => {
                prop_assert!(fits);
                prop_assert!(h < 1 << Recent::BITS);
                // The tag leaves the utility's bits free.
                prop_assert_eq!(tag & ((1 << UTILITY_BITS) - 1), 0);
                let stored = tag >> UTILITY_BITS;
                let mixed = (h as u64) << (KEY_BITS - Recent::BITS) | stored;
                let key = mixed.wrapping_mul(inverse(MIX)) & ((1 << KEY_BITS) - 1);
                prop_assert_eq!(key >> task_bits, end);
                prop_assert_eq!(key & ((1 << task_bits) - 1), t as u64);
            }
        }
    }
}

/// Pairs asked of one table from several handles (a clone shares it) and from two threads
/// at once, many more pairs than buckets, the same pairs asked again and again, and pairs
/// that share a bucket: every answer is the curve's (completions too late for a key
/// included).
#[test]
fn shared_recent_utilities_are_the_curves() {
    let inst = spaced(Objective::UtilityEnergy, 300, 40);
    let table = Recent::new();
    let ask = |seed: u64| {
        let mut recent = table.clone();
        let mut r = Stream::new(seed, 0, "test-recent-shared", 0);
        let mut pairs = Vec::new();
        for _ in 0..60_000 {
            let t = r.int(0, 299) as usize;
            let arrival = inst.walk[t].arrival;
            let scale = [1, 1_000, 1_000_000, 1 << 40][r.int(0, 3) as usize];
            let end = arrival + Micros(r.int(0, 3_000) * scale);
            pairs.push((t, end));
            if pairs.len() > 20 && r.int(0, 1) == 0 {
                // A pair asked before (maybe since evicted).
                let (t, end) = pairs[r.int(0, pairs.len() as u64 - 1) as usize];
                let want = inst.curves.utility(t, end - inst.walk[t].arrival);
                assert_eq!(recent.utility(&inst, t, end, inst.walk[t].arrival), want);
            }
            let want = inst.curves.utility(t, end - arrival);
            assert_eq!(recent.utility(&inst, t, end, arrival), want);
            assert_eq!(recent.utility(&inst, t, end, arrival), want);
        }
    };
    std::thread::scope(|s| {
        s.spawn(|| ask(1));
        s.spawn(|| ask(2));
    });
    ask(3);
    // Pairs of one bucket evict each other and are never taken for each other.
    let keys = inst.recent_keys;
    let (h0, _) = bucket(Micros(5_000_000), 7, keys).unwrap();
    let mut same: Vec<(usize, Micros)> = Vec::new();
    for t in 0..300 {
        for s in 0..20_000u64 {
            let end = inst.walk[t].arrival + Micros(s * 997);
            if bucket(end, t, keys).unwrap().0 == h0 {
                same.push((t, end));
            }
        }
    }
    assert!(same.len() > 10, "too few pairs share a bucket");
    let mut recent = table.clone();
    for round in 0..3 {
        for &(t, end) in same.iter().skip(round) {
            let arrival = inst.walk[t].arrival;
            assert_eq!(
                recent.utility(&inst, t, end, arrival),
                inst.curves.utility(t, end - arrival)
            );
        }
    }
}
