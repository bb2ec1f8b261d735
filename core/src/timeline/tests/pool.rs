//! The booking pool against a list a group: random inserts, removals, copies, clears and
//! prunes over a pool small enough to compact often, and to fill.

use super::super::pool::Pool;
use super::*;

proptest! {
    #[test]
    fn the_pool_holds_every_list_through_compactions(
        groups in 1usize..8,
        room in prop_oneof![0usize..200, Just(4096)],
        ops in prop::collection::vec((0u8..7, any::<u32>(), any::<u32>(), 0u64..1000), 1..200),
    ) {
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
                            prop_assert!(what == Capacity::Bookings || list.len() >= MAX_BOOKINGS_PER_NODE);
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
        // A pool as large as the bound for as many nodes as groups never fills.
        if room >= 2 * groups * MAX_BOOKINGS_PER_NODE {
            prop_assert!(!full);
        }
    }
}
