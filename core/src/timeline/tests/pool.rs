//! The booking pool against a list a group: random inserts, removals, copies, clears and
//! prunes over a pool small enough to compact often, and to fill.

use super::super::pool::Pool;
use super::*;

/// Random operations on a list a group.
type Ops = Vec<(u8, u32, u32, u64)>;

/// Runs `ops` on `groups` groups over a pool of `room` bookings, checking every list against
/// a model after each; returns whether the pool refused a booking, and its peak.
fn replay(groups: usize, room: usize, ops: &Ops) -> Result<(bool, usize), TestCaseError> {
    let mut store = vec![Booking::EMPTY; room];
    let mut arrays = vec![0u32; super::super::pool::POOL_ARRAYS * groups];
    let mut pool = Pool::new(&mut store, &mut arrays, groups);
    let live: Vec<u32> = (0..groups as u32).collect();
    let mut model: Vec<Vec<Booking>> = vec![Vec::new(); groups];
    let mut full = false;
    for (i, &(what, g, at, t)) in ops.iter().enumerate() {
        let g = g % groups as u32;
        let list = &mut model[g as usize];
        match what {
            0..=2 => {
                let i_at = at as usize % (list.len() + 1);
                let b = run(i as u32, t, t + 1);
                match pool.insert(g, i_at, b, &live) {
                    Ok(()) => list.insert(i_at, b),
                    Err(e) => {
                        // Only a full pool or a full list refuses, and then nothing changes.
                        let what = match e {
                            Error::Capacity(c) => c.what,
                            _ => return Err(TestCaseError::fail("not a capacity error")),
                        };
                        prop_assert!(
                            what == Capacity::Bookings || list.len() >= MAX_BOOKINGS_PER_NODE
                        );
                        // A full pool says what it needs: more than it holds.
                        if let Error::Capacity(c) = e {
                            prop_assert!(
                                c.what != Capacity::Bookings || c.needs > c.capacity,
                                "{:?}",
                                c
                            );
                        }
                        full = true;
                    }
                }
            }
            3 if !list.is_empty() => {
                let j = at as usize % list.len();
                prop_assert_eq!(pool.remove(g, j), list.remove(j));
            }
            4 => {
                list.retain(|b| b.start.0 % 3 != t % 3);
                pool.retain(g, |b| b.start.0 % 3 != t % 3);
            }
            5 if !list.is_empty() => {
                let k = at as usize % (list.len() + 1);
                list.drain(..k);
                pool.drop_front(g, k);
            }
            6 => {
                // A copy into another group, emptied first.
                let to = (g + 1 + at % groups as u32) % groups as u32;
                if to != g {
                    pool.clear(to);
                    model[to as usize].clear();
                    match pool.copy(g, to, 1, &live) {
                        Ok(()) => model[to as usize] = model[g as usize].clone(),
                        Err(_) => full = true,
                    }
                }
            }
            _ => {}
        }
        for (x, l) in model.iter().enumerate() {
            prop_assert_eq!(pool.list(x as u32), &l[..], "group {} after step {}", x, i);
        }
    }
    Ok((full, pool.peak()))
}

proptest! {
    #[test]
    fn the_pool_holds_every_list_through_compactions(
        groups in 1usize..8,
        room in prop_oneof![0usize..200, Just(4096)],
        ops in prop::collection::vec((0u8..7, any::<u32>(), any::<u32>(), 0u64..1000), 1..200),
    ) {
        let (full, _) = replay(groups, room, &ops)?;
        // A pool as large as the bound for as many nodes as groups never fills.
        if room >= 2 * groups * MAX_BOOKINGS_PER_NODE {
            prop_assert!(!full);
        }
    }

    /// The peak is the least pool that runs the same operations: one as long never
    /// refuses, one a booking shorter does (what the firmware's pool is sized by).
    #[test]
    fn a_pool_as_long_as_its_peak_suffices(
        groups in 1usize..8,
        ops in prop::collection::vec((0u8..7, any::<u32>(), any::<u32>(), 0u64..1000), 1..200),
    ) {
        let (full, peak) = replay(groups, 1 << 16, &ops)?;
        prop_assert!(!full);
        let (full, again) = replay(groups, peak, &ops)?;
        prop_assert!(!full);
        prop_assert_eq!(again, peak);
        if peak > 0 {
            prop_assert!(replay(groups, peak - 1, &ops)?.0);
        }
    }
}
