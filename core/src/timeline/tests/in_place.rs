//! `in_place.rs` against what it stands for: a reservation taken back and node choice asked
//! again over the same run, node by node (`chosen_by_nodes`).

use super::*;

/// Whether `rebooks_in_place` at `now` says what taking the reservation back and asking
/// node choice again does: the same nodes.
fn agrees(c: &mut ClusterTimeline<'_>, now: u64, s: u64, d: u64, k: u32) -> bool {
    let got = c.rebooks_in_place(m(now), TaskId(999), m(s), m(s + d), k);
    let mine = reserved_nodes(c);
    assert_eq!(c.remove_task_from(TaskId(999), m(s), k), k);
    let again = chosen_by_nodes(c, now, s, d, k as usize);
    assert_eq!(
        got,
        again == mine,
        "now {now}: {mine:?} would become {again:?}"
    );
    got
}

proptest! {
    #[test]
    fn a_reservation_comes_back_in_place_exactly_when_node_choice_picks_its_nodes(
        nodes in arb_cluster(),
        t in 0u64..100,
        k in 1u32..7,
        d in 1u64..60,
        later in prop::collection::vec((0u64..100, 1u32..4, 1u64..40), 0..4),
        wait in 0u64..100,
    ) {
        let mut store = Store::new(nodes.len());
        let mut c = build(&mut store, &nodes, false);
        let k = k.min(nodes.len() as u32);
        let Some(s) = book_at_earliest(&mut c, t, k, d, |s| reserved(s, d)) else {
            return Ok(());
        };
        // Bookings made after it, around it (as backfilled jobs are).
        for (j, &(dt, kk, dd)) in later.iter().enumerate() {
            let kk = kk.min(nodes.len() as u32);
            book_at_earliest(&mut c, t + dt, kk, dd, |x| run(2000 + j as u32, x, x + dd));
        }
        agrees(&mut c, t + wait % (s - t + 1), s, d, k);
    }
}

/// Both answers come up over a fixed set of random cases (the property above is not
/// vacuous), and a reservation asked again at once, with nothing booked since, always comes
/// back in place.
#[test]
fn both_answers_come_up_and_an_untouched_reservation_stays() {
    let mut g = Cases(0x2545_f491_4f6c_dd1d);
    let (mut kept, mut moved) = (0, 0);
    for _ in 0..400 {
        let nodes = g.cluster();
        let n = nodes.len();
        let (t, k, d) = g.query(n);
        let mut store = Store::new(n);
        let mut c = build(&mut store, &nodes, false);
        let Some(s) = book_at_earliest(&mut c, t, k, d, |s| reserved(s, d)) else {
            continue;
        };
        if g.next(2) == 0 {
            assert!(agrees(&mut c, t, s, d, k), "asked again at once");
            continue;
        }
        for j in 0..g.next(3) {
            let (kk, dd) = (1 + g.next(n as u64) as u32, 1 + g.next(30));
            book_at_earliest(&mut c, t + g.next(40), kk, dd, |x| {
                run(2000 + j as u32, x, x + dd)
            });
        }
        match agrees(&mut c, t + g.next(s - t + 1), s, d, k) {
            true => kept += 1,
            false => moved += 1,
        }
    }
    assert!(kept > 0 && moved > 0, "kept {kept}, moved {moved}");
}
