//! `ignoring.rs` against what it stands for: the reservation taken back and the earliest
//! start asked again (`earliest`, itself checked against the brute force), after bookings
//! were added and some of the others were taken away (early completions).

use super::*;

/// Whether `fits_before_ignoring` at `now` says what taking the reservation back does: an
/// earliest start before `s`. Returns its answer.
fn agrees(c: &mut ClusterTimeline<'_>, now: u64, s: u64, d: u64, k: u32) -> bool {
    let mut b = Bufs::new(c.n);
    let got = c
        .fits_before_ignoring(m(now), k, m(d), TaskId(999), m(s), (&mut b.a, &mut b.b))
        .expect("room and near times");
    assert_eq!(c.remove_task_from(TaskId(999), m(s), k), k);
    let again = earliest(c, now, k, d).expect("its own nodes at least");
    assert_eq!(
        got,
        again < s,
        "now {now}: the earliest start again is {again}, not {s}"
    );
    got
}

/// The cluster of `nodes` with task 999 reserved from `t`, `later` booked after it, and
/// the bookings of `nodes` whose bit is set in `gone` taken away; the reservation's start.
fn history(
    c: &mut ClusterTimeline<'_>,
    nodes: &[Vec<(u64, u64)>],
    t: u64,
    k: u32,
    d: u64,
    later: &[(u64, u32, u64)],
    gone: u64,
) -> Option<u64> {
    let s = book_at_earliest(c, t, k, d, |s| reserved(s, d))?;
    for (j, &(dt, kk, dd)) in later.iter().enumerate() {
        let kk = kk.min(c.n as u32);
        book_at_earliest(c, t + dt, kk, dd, |x| run(2000 + j as u32, x, x + dd));
    }
    // `build` names the bookings 1, 2, ... node after node.
    let mut id = 0;
    for n in nodes {
        for &(a, _) in n {
            id += 1;
            if gone >> (id % 64) & 1 == 1 {
                c.remove_task_from(TaskId(id), m(a), 1);
            }
        }
    }
    Some(s)
}

/// Whether `comes_back_in_place` at `now` answers as its two questions asked one after the
/// other: node choice picks the reservation's nodes again, and no time was freed since it
/// was booked or no earlier start fits without it.
fn one_walk_agrees(c: &ClusterTimeline<'_>, now: u64, s: u64, d: u64, k: u32) -> bool {
    let (task, mut b) = (TaskId(999), Bufs::new(c.n));
    let apart = c.rebooks_in_place(m(now), task, m(s), m(s + d), k)
        && (c.unloosened_since_reserved(task)
            || c.fits_before_ignoring(m(now), k, m(d), task, m(s), (&mut b.a, &mut b.b))
                == Some(false));
    let mut b = Bufs::new(c.n);
    let once = c.comes_back_in_place(m(now), task, m(s), m(s + d), k, (&mut b.a, &mut b.b));
    assert_eq!(once, apart, "now {now}, start {s}");
    once
}

proptest! {
    #[test]
    fn one_walk_answers_as_the_two_questions_apart(
        nodes in arb_cluster(),
        t in 0u64..100,
        k in 1u32..7,
        d in 1u64..60,
        later in prop::collection::vec((0u64..100, 1u32..4, 1u64..40), 0..4),
        gone in any::<u64>(),
        wait in 0u64..100,
        again in 0u64..100,
    ) {
        let mut store = Store::new(nodes.len());
        let mut c = build(&mut store, &nodes, false);
        let k = k.min(nodes.len() as u32);
        let Some(s) = history(&mut c, &nodes, t, k, d, &later, gone) else {
            return Ok(());
        };
        let now = t + wait % (s - t + 1);
        // Kept, then asked again later with nothing changed (the answer kept when no node
        // is free then).
        if one_walk_agrees(&c, now, s, d, k) && now < s {
            c.reserved_anew(TaskId(999));
            one_walk_agrees(&c, now + again % (s - now), s, d, k);
        }
    }

    #[test]
    fn no_earlier_start_ignoring_exactly_when_the_earliest_start_again_is_the_same(
        nodes in arb_cluster(),
        t in 0u64..100,
        k in 1u32..7,
        d in 1u64..60,
        later in prop::collection::vec((0u64..100, 1u32..4, 1u64..40), 0..4),
        gone in any::<u64>(),
        wait in 0u64..100,
    ) {
        let mut store = Store::new(nodes.len());
        let mut c = build(&mut store, &nodes, false);
        let k = k.min(nodes.len() as u32);
        let Some(s) = history(&mut c, &nodes, t, k, d, &later, gone) else {
            return Ok(());
        };
        agrees(&mut c, t + wait % (s - t + 1), s, d, k);
    }
}

/// Both answers come up over a fixed set of random cases (the properties are not vacuous),
/// for the sweep alone and for the one walk; a reservation kept is kept again later with
/// nothing changed, and some of those later asks find no node free (the walk skipped).
#[test]
fn both_answers_come_up() {
    let mut g = Cases(0x9e37_79b9_7f4a_7c15);
    let (mut stays, mut earlier, mut kept, mut moved, mut full) = (0, 0, 0, 0, 0);
    for _ in 0..400 {
        let nodes = g.cluster();
        let n = nodes.len();
        let (t, k, d) = g.query(n);
        let later: Vec<(u64, u32, u64)> = (0..g.next(3))
            .map(|_| (g.next(40), 1 + g.next(3) as u32, 1 + g.next(30)))
            .collect();
        let gone = g.next(u64::MAX) & g.next(u64::MAX);
        let mut store = Store::new(n);
        let mut c = build(&mut store, &nodes, false);
        let Some(s) = history(&mut c, &nodes, t, k, d, &later, gone) else {
            continue;
        };
        let now = t + g.next(s - t + 1);
        match one_walk_agrees(&c, now, s, d, k) {
            true => {
                kept += 1;
                if now < s {
                    c.reserved_anew(TaskId(999));
                    let later = now + g.next(s - now);
                    if c.free_over(m(later), m(s + d), 1) == 0 {
                        full += 1;
                    }
                    one_walk_agrees(&c, later, s, d, k);
                }
            }
            false => moved += 1,
        }
        match agrees(&mut c, now, s, d, k) {
            true => earlier += 1,
            false => stays += 1,
        }
    }
    assert!(stays > 0 && earlier > 0, "stays {stays}, earlier {earlier}");
    assert!(
        kept > 0 && moved > 0 && full > 0,
        "kept {kept}, moved {moved}, full {full}"
    );
}

/// A group without the reservation whose longest void between bookings, freed by an early
/// completion, is exactly the run: the reservation could start there, earlier (a void as
/// long as the run holds it).
#[test]
fn a_void_between_bookings_as_long_as_the_run_counts() {
    let nodes = vec![vec![(0, 40)], vec![(0, 10), (12, 18), (20, 100)]];
    let mut store = Store::new(nodes.len());
    let mut c = build(&mut store, &nodes, false);
    let s = book_at_earliest(&mut c, 0, 1, 10, |s| reserved(s, 10)).expect("a start");
    assert_eq!(s, 40);
    assert!(!agrees(&mut c, 0, s, 10, 1));
    let mut store = Store::new(nodes.len());
    let mut c = build(&mut store, &nodes, false);
    book_at_earliest(&mut c, 0, 1, 10, |s| reserved(s, 10));
    assert_eq!(c.remove_task_from(TaskId(3), m(12), 1), 1);
    assert!(agrees(&mut c, 0, s, 10, 1));
}

/// A reservation kept, then asked again with nothing changed after another node's void,
/// open now, shrank below its own nodes' (node choice would now take that node): it is not
/// kept again, since that node is free from now to the reservation's end.
#[test]
fn a_void_open_now_that_shrinks_past_the_reservations_is_seen() {
    // Nodes 0 and 1 busy until 20 and from 40; node 2 free until 30. Two nodes for 10 start
    // at 20 at the earliest, on nodes 0 and 1 (their void, 20 long, before node 2's, 30).
    let nodes = vec![
        vec![(0, 20), (40, 50)],
        vec![(0, 20), (40, 50)],
        vec![(30, 50)],
    ];
    let mut store = Store::new(nodes.len());
    let mut c = build(&mut store, &nodes, false);
    let s = book_at_earliest(&mut c, 0, 2, 10, |s| reserved(s, 10)).expect("a start");
    assert_eq!((s, reserved_nodes(&c)), (20, vec![0, 1]));
    assert!(one_walk_agrees(&c, 0, s, 10, 2));
    c.reserved_anew(TaskId(999));
    // At 15 node 2's void is 15 long from now, shorter than theirs.
    assert!(!one_walk_agrees(&c, 15, s, 10, 2));
}
