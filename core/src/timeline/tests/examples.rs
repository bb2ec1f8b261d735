//! Worked cases: small clusters whose answers can be checked by hand.

use super::*;

#[test]
fn a_sweep_past_203_days_is_the_node_sweeps() {
    // Times 2^45 µs (407 days) past the query do not fit a grouped key: the answers
    // that need them come from the node sweep, the others from the groups.
    let far = 1u64 << 45;
    let nodes = vec![vec![(0, far)], vec![(far + 5, far + 9)], vec![]];
    let mut store = Store::new(nodes.len());
    let c = build(&mut store, &nodes, false);
    let mut b = Bufs::new(nodes.len());
    for (t, k, d) in [
        (0, 2, 10),
        (0, 3, 10),
        (0, 3, far),
        (7, 1, 3),
        (far - 2, 2, 4),
    ] {
        let grouped = c.swept_by_groups(m(t), k, m(d), &mut b.scratch()).unwrap();
        let swept = c
            .swept_earliest(m(t), NodeCount(k as u32), m(d), &mut b.scratch())
            .unwrap();
        let by_nodes = c.swept_by_nodes(m(t), k, m(d), &mut b.scratch()).unwrap();
        assert_eq!(swept, by_nodes, "t={t} k={k} d={d}");
        assert_eq!(swept.map(|f| f.start.0), brute(&nodes, t, k, d));
        // The groups answer where k nodes are free for good within 2^44 µs of t.
        assert_eq!(grouped.is_some(), (t, k) != (0, 3), "t={t} k={k} d={d}");
    }
}

#[test]
fn empty_cluster_starts_now() {
    let mut store = Store::new(4);
    let mut c = store.cluster();
    assert_eq!(earliest(&mut c, 5, 4, 10), Some(5));
    assert_eq!(earliest(&mut c, 5, 5, 10), None);
}

#[test]
fn waits_for_enough_nodes_and_uses_a_void_that_fits() {
    let mut store = Store::new(3);
    let mut c = store.cluster();
    c.book(&[0], run(1, 0, 10)).unwrap();
    c.book(&[1], run(2, 0, 20)).unwrap();
    c.book(&[2], run(3, 5, 8)).unwrap();
    // One node: node 2 is free now until 5, a 5-long job fits there.
    assert_eq!(earliest(&mut c, 0, 1, 5), Some(0));
    // A 6-long job does not fit before 5; node 2 is free again at 8.
    assert_eq!(earliest(&mut c, 0, 1, 6), Some(8));
    // Two nodes: node 2 from 8 and node 0 from 10.
    assert_eq!(earliest(&mut c, 0, 2, 100), Some(10));
    assert_eq!(earliest(&mut c, 0, 3, 1), Some(20));
}

/// Seed 000 Fig. 5: three nodes out of four free ones, chosen n6, n5, then n3 (n4 left).
#[test]
fn node_choice_of_fig5() {
    // Ten nodes n1..n10 at indices 0..9. The task needs 3 nodes for [20, 30).
    let mut store = Store::new(10);
    let mut c = store.cluster();
    // Busy nodes at 20: n1, n2, n7, n8, n9, n10.
    for (i, t) in [(0u32, 1u32), (1, 2), (6, 7), (7, 8), (8, 9), (9, 10)] {
        c.book(&[i], run(t, 0, 40)).unwrap();
    }
    // n3: free from 15, next task at 50: would leave voids before and after (2 new voids),
    // void size 35.
    c.book(&[2], run(3, 0, 15)).unwrap();
    c.book(&[2], run(33, 50, 60)).unwrap();
    // n4: free from 12, next task at 60: 2 new voids, void size 48 (larger than n3's).
    c.book(&[3], run(4, 0, 12)).unwrap();
    c.book(&[3], run(44, 60, 70)).unwrap();
    // n5: ends exactly at 20, nothing after: no new void, open-ended void.
    c.book(&[4], run(5, 0, 20)).unwrap();
    // n6: ends exactly at 20, next task exactly at 30: no new void, void of size 10.
    c.book(&[5], run(6, 0, 20)).unwrap();
    c.book(&[5], run(66, 30, 40)).unwrap();
    assert_eq!(earliest(&mut c, 0, 3, 10), Some(20));
    let mut out = [0u32; 3];
    let mut keys = [0u64; 20];
    assert_eq!(c.choose_nodes(m(0), m(20), m(10), &mut out, &mut keys), 3);
    // n6, n5, n3 (indices 5, 4, 2), in node order.
    assert_eq!(out, [2, 4, 5]);
}

#[test]
fn booking_is_all_or_nothing() {
    let mut store = Store::new(2);
    let mut c = store.cluster();
    c.book(&[1], run(1, 0, 10)).unwrap();
    assert_eq!(
        c.book(&[0, 1], run(2, 5, 15)),
        Err(Error::Input(InputError::Overlap))
    );
    assert!(c.node(0).unwrap().bookings().is_empty());
    assert_eq!(
        c.book(&[0, 0], run(2, 5, 15)),
        Err(Error::Input(InputError::Overlap))
    );
    assert!(c.node(0).unwrap().bookings().is_empty());
}

#[test]
fn a_full_node_is_a_capacity_error() {
    let mut store = Store::new(1);
    let mut c = store.cluster();
    for i in 0..MAX_BOOKINGS_PER_NODE as u64 {
        c.book(&[0], run(i as u32, i * 10, i * 10 + 5)).unwrap();
    }
    let e = c.book(&[0], run(999, 100_000, 100_005)).unwrap_err();
    assert!(matches!(e, Error::Capacity(ce) if ce.what == Capacity::NodeBookings));
}

#[test]
fn early_completion_frees_nodes_then() {
    let mut store = Store::new(2);
    let mut c = store.cluster();
    c.book(&[0, 1], run(1, 0, 100)).unwrap();
    assert_eq!(earliest(&mut c, 10, 2, 5), Some(100));
    assert_eq!(c.complete(TaskId(1), m(40)), 2);
    assert_eq!(earliest(&mut c, 40, 2, 5), Some(40));
}

#[test]
fn the_booking_log_and_change_counts() {
    let mut store = Store::new(3);
    let mut c = store.cluster();
    c.book(&[0, 1], run(1, 0, 10)).unwrap();
    let t0 = c.tightened();
    c.book(&[2], place(2, 5, 20)).unwrap();
    c.book(&[0], run(3, 30, 40)).unwrap();
    let since: Vec<Logged> = c.booked_since(t0).unwrap().collect();
    assert_eq!(
        since,
        vec![
            Logged {
                start: 5,
                end: 20,
                nodes: 1
            },
            Logged {
                start: 30,
                end: 40,
                nodes: 1
            }
        ]
    );
    assert_eq!(c.booked_since(c.tightened()).unwrap().count(), 0);
    // Older than the log: unknown.
    for i in 0..BOOKING_LOG as u32 {
        c.book(&[1], run(100 + i, 100 + 2 * i as u64, 101 + 2 * i as u64))
            .unwrap();
    }
    assert!(c.booked_since(t0).is_none());
    // Only freeing time loosens: an on-time end and a prune do not, a place-holder
    // cleared, an early end and a reservation taken back do.
    let l = c.loosened();
    c.prune(m(12));
    assert_eq!(
        c.complete_from(TaskId(1), m(0), m(10), u32::MAX),
        0,
        "pruned already"
    );
    assert_eq!(c.loosened(), l);
    c.clear_place_holders();
    assert_eq!(c.loosened(), l + 1);
    c.clear_place_holders();
    assert_eq!(c.loosened(), l + 1, "nothing to clear");
    assert_eq!(c.complete_from(TaskId(3), m(30), m(35), u32::MAX), 1);
    assert_eq!(c.loosened(), l + 2);
    assert_eq!(c.remove_task_from(TaskId(100), m(100), u32::MAX), 1);
    assert_eq!(c.loosened(), l + 3);
}

#[test]
fn a_wrapped_stamp_forgets_every_old_mark() {
    let mut store = Store::new(2);
    let mut c = store.cluster();
    give_index(&mut c, ClusterTimeline::index_work_len(2));
    c.book(&[0, 1], run(1, 10, 20)).unwrap();
    assert!(c.fresh_index());
    // Group 0 as a change stamped 1 touched it, 2^32 changes ago: the next change's stamp
    // wraps round to 1 and must not take the group for one it has already checked and
    // counted (it would then be neither checked for an overlap nor booked).
    c.groups.mark[0] = 1;
    c.groups.stamp = u32::MAX;
    c.book(&[0], run(2, 30, 40)).unwrap();
    assert_eq!(
        c.node(0).unwrap().bookings(),
        &[run(1, 10, 20), run(2, 30, 40)]
    );
    assert_eq!(c.node(1).unwrap().bookings(), &[run(1, 10, 20)]);
    assert_eq!(c.groups(), 2);
    assert_eq!(c.index.as_ref().unwrap().built, Some(c.version));
    index_is_its_rebuild(&mut c).unwrap();
    c.groups.mark[0] = 1;
    c.groups.stamp = u32::MAX;
    assert_eq!(
        c.book(&[0], run(3, 15, 25)),
        Err(Error::Input(InputError::Overlap))
    );
}

#[test]
fn removing_by_start_equals_removing_by_scan() {
    let book_all = |c: &mut ClusterTimeline<'_>| {
        c.book(&[0, 2], run(1, 0, 10)).unwrap();
        c.book(&[1], run(2, 0, 30)).unwrap();
        c.book(&[0, 1, 2], run(3, 40, 50)).unwrap();
    };
    let (mut a, mut b) = (Store::new(3), Store::new(3));
    let (mut ca, mut cb) = (a.cluster(), b.cluster());
    book_all(&mut ca);
    book_all(&mut cb);
    assert_eq!(
        ca.mark_running_from(TaskId(3), m(40)),
        cb.mark_running(TaskId(3))
    );
    assert_eq!(
        ca.complete_from(TaskId(1), m(0), m(8), u32::MAX),
        cb.complete(TaskId(1), m(8))
    );
    assert_eq!(
        ca.remove_task_from(TaskId(3), m(40), u32::MAX),
        cb.remove_task(TaskId(3))
    );
    assert_eq!(
        ca.remove_task_from(TaskId(9), m(40), u32::MAX),
        0,
        "no such task"
    );
    assert_eq!(ca.loosened(), cb.loosened());
    for (x, y) in ca.nodes().zip(cb.nodes()) {
        assert_eq!(x.bookings(), y.bookings());
    }
}

#[test]
fn free_over_counts_up_to_what_is_wanted() {
    let mut store = Store::new(4);
    let mut c = store.cluster();
    c.book(&[0], run(1, 0, 10)).unwrap();
    c.book(&[1], run(2, 20, 30)).unwrap();
    assert_eq!(c.free_over(m(0), m(20), u32::MAX), 3);
    assert_eq!(c.free_over(m(10), m(20), u32::MAX), 4);
    assert_eq!(c.free_over(m(10), m(20), 2), 2);
    assert_eq!(c.free_over(m(0), m(100), u32::MAX), 2);
}

#[test]
fn free_node_time_counts_unbooked_time() {
    let mut store = Store::new(2);
    let mut c = store.cluster();
    c.book(&[0], run(1, 0, 30)).unwrap();
    c.book(&[1], place(2, 50, 150)).unwrap();
    // [10, 100): node 0 free 70, node 1 free 40.
    assert_eq!(c.free_node_time(m(10), m(100)), 110);
}

/// Several groups with equal voids at the margin of a choice: their lowest nodes are
/// merged by index, as node by node.
#[test]
fn a_choice_takes_the_lowest_nodes_of_groups_with_equal_voids() {
    let mut store = Store::new(10);
    let mut c = store.cluster();
    // Three groups, each free over [10, 100) (told apart by their tasks), and node 9 free
    // over [10, 30) exactly.
    for (g, task) in [([0, 3, 6], 1), ([1, 4, 7], 3), ([2, 5, 8], 5)] {
        c.book(&g, run(task, 0, 10)).unwrap();
        c.book(&g, run(task + 1, 100, 110)).unwrap();
    }
    c.book(&[9], run(7, 0, 10)).unwrap();
    c.book(&[9], run(8, 30, 40)).unwrap();
    assert_eq!(c.groups(), 4);
    let mut keys = [0u64; 8];
    let choose = |k: usize, keys: &mut [u64]| {
        let mut out = vec![0u32; k];
        let got = c.choose_nodes(m(10), m(10), m(20), &mut out, keys);
        out.truncate(got);
        out
    };
    assert_eq!(choose(1, &mut keys), [9]);
    assert_eq!(choose(5, &mut keys), [0, 1, 2, 3, 9]);
    assert_eq!(choose(8, &mut keys), [0, 1, 2, 3, 4, 5, 6, 9]);
    assert_eq!(choose(11, &mut keys), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Keys for fewer than two entries a group: no choice.
    assert!(choose(5, &mut keys[..7]).is_empty());
    for k in 1..=10 {
        assert_eq!(choose(k, &mut keys), chosen_by_nodes(&c, 10, 10, 20, k));
    }
}

#[test]
fn booking_a_choice_needs_keys_for_every_group() {
    let mut st = Store::new(4);
    let mut c = st.cluster();
    c.book(&[1], run(1, 0, 10)).unwrap();
    c.book(&[3], run(2, 5, 10)).unwrap();
    assert_eq!(c.groups(), 3);
    let mut short = [0u64; 5];
    let err = c.book_chosen(m(0), 2, place(3, 20, 30), &mut short);
    assert!(matches!(err, Err(Error::Capacity(_))), "{err:?}");
    assert_eq!(c.booked, 2, "nothing booked");
    let mut keys = [0u64; 6];
    // Only node 0 and 2 are free over [0, 10): not 3 of them, and nothing changes.
    assert_eq!(
        c.book_chosen(m(0), 3, place(3, 0, 10), &mut keys),
        Ok(false)
    );
    assert_eq!(c.booked, 2);
    assert_eq!(c.book_chosen(m(0), 2, place(3, 0, 10), &mut keys), Ok(true));
    assert_eq!(c.node(0).unwrap().bookings()[0].task, TaskId(3));
    assert_eq!(c.node(2).unwrap().bookings()[0].task, TaskId(3));
    assert_eq!(c.held(), 2);
}

#[test]
fn a_copy_is_the_cluster_it_copies() {
    let (mut a, mut b, mut other) = (Store::new(4), Store::new(4), Store::new(3));
    let (mut src, mut dst, mut small) = (a.cluster(), b.cluster(), other.cluster());
    src.book(&[0, 1, 2], run(1, 10, 20)).unwrap();
    src.book(&[1], place(2, 30, 40)).unwrap();
    src.prune(m(5));
    // The copy's own bookings and history go (no booking of its own ended before 50).
    dst.book(&[3], run(9, 0, 50)).unwrap();
    dst.copy_from(&src).unwrap();
    for i in 0..4 {
        assert_eq!(
            dst.node(i).unwrap().bookings(),
            src.node(i).unwrap().bookings()
        );
    }
    groups_are_a_partition(&dst).unwrap();
    assert_eq!((dst.groups(), dst.held(), dst.tightened()), (3, 1, 2));
    assert_eq!(dst.free_over(m(15), m(35), u32::MAX), 1);
    assert_eq!(dst.free_over(m(25), m(28), u32::MAX), 4);
    assert!(small.copy_from(&src).is_err(), "a cluster of another size");
}

/// Distinct booking lists among the nodes: the fewest groups there can be.
fn distinct_lists(c: &ClusterTimeline<'_>) -> usize {
    let lists: Vec<Vec<Booking>> = c.nodes().map(|n| n.bookings().to_vec()).collect();
    (0..lists.len())
        .filter(|&i| !lists[..i].contains(&lists[i]))
        .count()
}

#[test]
fn reservations_placed_again_and_again_keep_the_groups_near_the_fewest() {
    // Conservative's compression: every reservation taken back and booked again, event
    // after event, here on nodes that shift each round. Each take-back leaves the nodes it
    // freed equal to others, as groups of their own until a merge; the groups must not
    // pile up to twice the distinct lists before they are merged.
    let n = 64u32;
    let mut store = Store::new(n as usize);
    let mut c = store.cluster();
    // Running jobs ending at different times tell the nodes apart.
    for j in 0..8u32 {
        let nodes: Vec<u32> = (8 * j..8 * j + 8).collect();
        c.book(&nodes, run(j + 1, 0, 100 + 10 * j as u64)).unwrap();
    }
    // Reservations at times of their own, so that any nodes are free for them.
    let reservation = |r: u32| run(100 + r, 1000 + 100 * r as u64, 1050 + 100 * r as u64);
    let width = |r: u32| 3 + r % 4;
    let window = |r: u32, round: u32| -> Vec<u32> {
        let from = (7 * r + 5 * round) % (n - width(r));
        (from..from + width(r)).collect()
    };
    for r in 0..24 {
        c.book(&window(r, 0), reservation(r)).unwrap();
    }
    let mut most = distinct_lists(&c);
    for round in 1..30 {
        for r in 0..24 {
            let b = reservation(r);
            assert_eq!(c.remove_task_from(b.task, b.start, width(r)), width(r));
            let fewest = distinct_lists(&c);
            most = most.max(fewest);
            assert!(
                c.groups() < most + most / 8 + 4,
                "round {round}: {} groups for {fewest} distinct lists (at most {most} so far)",
                c.groups()
            );
            c.book(&window(r, round), b).unwrap();
            most = most.max(distinct_lists(&c));
            groups_are_a_partition(&c).unwrap();
        }
    }
}
