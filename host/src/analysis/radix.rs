//! The analysis's sort of the measured jobs' keys: a least-significant-digit radix sort over
//! the keys' eight bytes, which skips every byte all the keys share.
//!
//! The analysis sorts two keys a measured job (its wait and its bounded slowdown, as
//! `total_key`s), tens of thousands of them on a shared log; a comparison sort costs about
//! `log2 n` comparisons a key, the radix sort a count and a move a byte, and fewer bytes
//! still where the keys share them (a whole number of seconds as an `f64` leaves its low
//! bytes zero). Each pass is stable, so keys come out in ascending order, equal keys in the
//! order they came in; the caller's values of equal keys are the same bits, so that order
//! is never seen.

/// Sorts `items` by `key` ascending, stably, with `spare` as the buffer the passes move
/// the items through (resized to `items`' length).
pub fn sort_by_u64<T: Copy>(items: &mut Vec<T>, spare: &mut Vec<T>, key: impl Fn(&T) -> u64) {
    let n = items.len();
    if n < 2 {
        return;
    }
    // Every byte's counts in one read of the keys.
    let mut counts = [[0usize; 256]; 8];
    for it in items.iter() {
        let k = key(it);
        for (b, c) in counts.iter_mut().enumerate() {
            c[(k >> (8 * b)) as usize & 0xFF] += 1;
        }
    }
    spare.clear();
    spare.extend_from_slice(items);
    for (b, c) in counts.iter_mut().enumerate() {
        // A byte every key shares moves nothing.
        if c.contains(&n) {
            continue;
        }
        let mut at = 0;
        for x in c.iter_mut() {
            let here = *x;
            *x = at;
            at += here;
        }
        for it in items.iter() {
            let d = (key(it) >> (8 * b)) as usize & 0xFF;
            spare[c[d]] = *it;
            c[d] += 1;
        }
        core::mem::swap(items, spare);
    }
}
