//! Properties over random clusters and histories, against the brute force and the model.

use super::*;

proptest! {
    #[test]
    fn earliest_start_agrees_with_brute_force(nodes in arb_cluster(), t in 0u64..300, k in 1usize..7, d in 1u64..80) {
        let mut store = Store::new(nodes.len());
        let mut c = build(&mut store, &nodes, false);
        let got = earliest(&mut c, t, k as u32, d);
        prop_assert_eq!(got, brute(&nodes, t, k, d));
        // And the nodes chosen there are really free, distinct, and as many as asked.
        if let Some(s) = got {
            let mut out = vec![0u32; k];
            let mut keys = vec![0u64; 2 * nodes.len()];
            prop_assert_eq!(c.choose_nodes(m(t), m(s), m(d), &mut out, &mut keys), k);
            for (i, &n) in out.iter().enumerate() {
                prop_assert!(c.node(n).unwrap().is_free(m(s), m(s + d)));
                prop_assert!(!out[..i].contains(&n));
            }
            prop_assert_eq!(&out, &chosen_by_nodes(&c, t, s, d, k));
        }
    }

    /// What a best's pruning before a query relies on: on the same nodes, a longer run
    /// never starts earlier than a shorter one.
    #[test]
    fn a_longer_run_starts_no_earlier(nodes in arb_cluster(), t in 0u64..300, k in 1usize..7, d in 1u64..80, more in 0u64..80) {
        let mut store = Store::new(nodes.len());
        let mut c = build(&mut store, &nodes, false);
        let short = earliest(&mut c, t, k as u32, d);
        let long = earliest(&mut c, t, k as u32, d + more);
        if let Some(l) = long {
            prop_assert!(short.is_some_and(|s| s <= l), "{:?} then {:?}", short, long);
        }
    }

    #[test]
    fn no_node_is_ever_booked_twice(nodes in arb_cluster(), reqs in prop::collection::vec((0u64..300, 1u32..7, 1u64..60), 1..20)) {
        let mut store = Store::new(nodes.len());
        let mut c = build(&mut store, &nodes, false);
        let mut bufs = Bufs::new(nodes.len());
        for (i, (t, k, d)) in reqs.into_iter().enumerate() {
            let fit = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap();
            if let Some(f) = fit {
                let mut out = vec![0u32; k as usize];
                let mut keys = vec![0u64; 2 * nodes.len()];
                let got = c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys);
                prop_assert_eq!(got, k as usize);
                let b = run(1000 + i as u32, f.start.0, f.start.0 + d);
                match c.book(&out, b) {
                    Ok(()) => {}
                    Err(Error::Capacity(_)) => {}
                    Err(e) => prop_assert!(false, "booking a chosen fit failed: {:?}", e),
                }
            }
            // Every node's bookings stay sorted and disjoint.
            for n in c.nodes() {
                for w in n.bookings().windows(2) {
                    prop_assert!(w[0].end <= w[1].start);
                }
            }
        }
    }

    #[test]
    fn the_void_index_kept_across_bookings_equals_a_rebuild(nodes in arb_cluster(), reqs in prop::collection::vec((0u64..300, 1u32..7, 1u64..60), 1..25)) {
        let mut store = Store::new(nodes.len());
        let mut c = build(&mut store, &nodes, false);
        let l = ClusterTimeline::scratch_len(nodes.len());
        // Work room for any change here, so that every one is applied in place: a split
        // group's voids go, and come again in both parts (at most 31 voids a node here).
        c.set_index(leak(l), leak(l), leak(128 * nodes.len()));
        let mut bufs = Bufs::new(nodes.len());
        let mut incremental = 0;
        for (i, (t, k, d)) in reqs.into_iter().enumerate() {
            let fit = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap();
            let swept = c.swept_earliest(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap();
            prop_assert_eq!(fit, swept);
            if let Some(f) = fit {
                let mut out = vec![0u32; k as usize];
                let mut keys = vec![0u64; 2 * nodes.len()];
                c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys);
                // The choice by groups is the choice node by node, and the counts of free
                // nodes read off the index are those from every group's timeline.
                prop_assert_eq!(&out, &chosen_by_nodes(&c, t, f.start.0, d, k as usize));
                for (s, e) in [(t, t + d), (f.start.0, f.start.0 + d), (t, t + 1), (t + d, t + 3 * d)] {
                    prop_assert_eq!(
                        c.free_over_by(true, m(s), m(e), u32::MAX),
                        c.free_over_by(false, m(s), m(e), u32::MAX)
                    );
                }
                if c.book(&out, run(2000 + i as u32, f.start.0, f.start.0 + d)).is_ok() {
                    // Every third booking is taken back again (a reservation given up):
                    // the joined voids must equal a rebuild too.
                    if i % 3 == 2 {
                        prop_assert_eq!(c.remove_task_from(TaskId(2000 + i as u32), f.start, k), k);
                    }
                    // Nothing to clear or prune: the index stays as it is.
                    c.clear_place_holders();
                    c.prune(m(0));
                    // Kept current, not left to a rebuild.
                    prop_assert_eq!(c.index.as_ref().unwrap().built, Some(c.version));
                    incremental += 1;
                    index_is_its_rebuild(&mut c)?;
                }
            }
        }
        let _ = incremental;
    }

    #[test]
    fn the_index_through_events_holds_every_nodes_voids(nodes in arb_cluster(), ops in prop::collection::vec((0u8..4, 0u64..300, 1u32..5, 1u64..60), 1..40)) {
        let mut store = Store::new(nodes.len());
        let mut c = build(&mut store, &nodes, false);
        let l = ClusterTimeline::scratch_len(nodes.len());
        c.set_index(leak(l), leak(l), leak(ClusterTimeline::index_work_len(nodes.len())));
        let mut bufs = Bufs::new(nodes.len());
        let mut live: Vec<(u32, u64, u64)> = Vec::new();
        let mut fresh = 0;
        for (i, &(op, t, k, d)) in ops.iter().enumerate() {
            let id = 7000 + i as u32;
            match op {
                // An event: the place-holders go, and what ended by t.
                0 => {
                    let had = c.held > 0;
                    c.clear_place_holders();
                    let before: Vec<Vec<Booking>> = c.nodes().map(|n| n.bookings().to_vec()).collect();
                    c.prune(m(t));
                    for (n, b) in c.nodes().zip(before) {
                        let kept: Vec<Booking> = b.into_iter().filter(|b| b.end.0 > t).collect();
                        prop_assert_eq!(n.bookings(), &kept[..]);
                    }
                    live.retain(|&(_, _, e)| e > t);
                    // Place-holders cleared: the groups they split apart are one again.
                    if had {
                        groups_are_distinct(&c)?;
                    }
                }
                // A reservation or a place-holder at the earliest start.
                1 | 2 => {
                    if let Some(f) = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap() {
                        let mut out = vec![0u32; k as usize];
                        let mut keys = vec![0u64; 2 * nodes.len()];
                        c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys);
                        let b = if op == 1 { run(id, f.start.0, f.start.0 + d) } else { place(id, f.start.0, f.start.0 + d) };
                        if c.book(&out, b).is_ok() && op == 1 {
                            live.push((id, f.start.0, f.start.0 + d));
                        }
                    }
                }
                // A reservation taken back.
                _ => {
                    if let Some((id, s, _)) = live.pop() {
                        prop_assert!(c.remove_task_from(TaskId(id), m(s), u32::MAX) > 0);
                    }
                }
            }
            let held = c.nodes().flat_map(|n| n.bookings()).filter(|b| b.kind == BookingKind::PlaceHolder).count();
            prop_assert_eq!(c.held as usize, held);
            let booked: usize = c.nodes().map(|n| n.bookings().len()).sum();
            prop_assert_eq!(c.booked as usize, booked);
            let first_end = c.nodes().flat_map(|n| n.bookings()).map(|b| b.end).min();
            prop_assert!(first_end.is_none_or(|e| c.first_end <= e));
            // The index, when fresh (kept through the change or rebuilt by a query), holds
            // every node's voids.
            if c.index.as_ref().unwrap().built == Some(c.version) {
                fresh += 1;
                index_is_every_nodes_voids(&c)?;
            }
            // And the index, when fresh, is its own rebuild.
            if c.index.as_ref().unwrap().built == Some(c.version) {
                index_is_its_rebuild(&mut c)?;
            }
        }
        let _ = fresh;
    }

    #[test]
    fn clearing_place_holders_restores_the_state_before_them(nodes in arb_cluster(), reqs in prop::collection::vec((0u64..300, 1u32..4, 1u64..60), 1..10)) {
        let mut store = Store::new(nodes.len());
        let mut c = build(&mut store, &nodes, false);
        let before: Vec<Vec<Booking>> = c.nodes().map(|n| n.bookings().to_vec()).collect();
        let groups = c.groups();
        let mut bufs = Bufs::new(nodes.len());
        for (i, (t, k, d)) in reqs.into_iter().enumerate() {
            if let Some(f) = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch()).unwrap() {
                let mut out = vec![0u32; k as usize];
                let mut keys = vec![0u64; 2 * nodes.len()];
                c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys);
                let _ = c.book(&out, place(5000 + i as u32, f.start.0, f.start.0 + d));
            }
        }
        c.clear_place_holders();
        let after: Vec<Vec<Booking>> = c.nodes().map(|n| n.bookings().to_vec()).collect();
        prop_assert_eq!(before, after);
        // And the groups the place-holders split are one again.
        prop_assert_eq!(c.groups(), groups);
    }

    #[test]
    fn groups_stay_a_partition_of_nodes_with_equal_bookings(n in 1usize..24, ops in arb_ops(60), room in 0usize..4) {
        let mut store = Store::new(n);
        let mut c = store.cluster();
        // An index with room for every void, or with too little room to apply some changes
        // (they are then rebuilt) or to hold every void (the sweep answers instead).
        let l = ClusterTimeline::scratch_len(n);
        let w = ClusterTimeline::index_work_len(n);
        let (voids, work) = [(l, w), (l, n), (2 * n, w), (n, 2)][room];
        c.set_index(leak(voids), leak(voids), leak(work));
        let mut model: Model = vec![Vec::new(); n];
        let mut bufs = Bufs::new(n);
        for (i, &op) in ops.iter().enumerate() {
            let merged = step(&mut c, &mut model, i, op, &mut bufs)?;
            shows(&c, &model)?;
            if merged {
                groups_are_distinct(&c)?;
            }
            // A query after each change: from the index (kept through it, or rebuilt) as
            // by the sweep.
            let (_, mask, a, len, _) = op;
            let t = m((a * 10).max(c.horizon.0));
            let (k, d) = (NodeCount(1 + mask % n as u32), m(len * 10));
            let fit = c.earliest_start(t, k, d, &mut bufs.scratch()).unwrap();
            prop_assert_eq!(fit, c.swept_earliest(t, k, d, &mut bufs.scratch()).unwrap());
            shows(&c, &model)?;
        }
        // A merge leaves one group for each distinct list of bookings, and the nodes'
        // bookings as they were.
        c.merge();
        shows(&c, &model)?;
        groups_are_distinct(&c)?;
        let distinct = (0..n).filter(|&i| !model[..i].contains(&model[i])).count();
        prop_assert_eq!(c.groups(), distinct);
    }

    #[test]
    fn choose_nodes_is_the_node_by_node_choice(n in 1usize..16, ops in arb_ops(30), queries in prop::collection::vec((0u64..12, 0u64..12, 1u64..5, 1usize..17), 1..12)) {
        let mut store = Store::new(n);
        let mut c = store.cluster();
        let mut model: Model = vec![Vec::new(); n];
        let mut bufs = Bufs::new(n);
        for (i, &op) in ops.iter().enumerate() {
            step(&mut c, &mut model, i, op, &mut bufs)?;
        }
        shows(&c, &model)?;
        for (now, s, d, k) in queries {
            let (now, s, d) = (now.min(s) * 10, s * 10, d * 10);
            // Nothing starts before the last prune's `now`.
            let (now, s) = (now.max(c.horizon.0), s.max(c.horizon.0));
            let mut out = vec![0u32; k];
            // Exactly the keys it needs.
            let mut keys = vec![0u64; 2 * c.groups()];
            let got = c.choose_nodes(m(now), m(s), m(d), &mut out, &mut keys);
            out.truncate(got);
            prop_assert_eq!(&out, &chosen_by_nodes(&c, now, s, d, k), "now {} s {} d {} k {}", now, s, d, k);
        }
    }

    #[test]
    fn a_copy_is_its_source_in_every_observable(n in 1usize..12, ops in arb_ops(40), mine in arb_ops(20), after in arb_ops(20), queries in prop::collection::vec((0u64..12, 1u32..13, 1u64..5), 1..6)) {
        let queries: Vec<(u64, u32, u64)> = queries.into_iter().map(|(t, k, d)| (t, 1 + (k - 1) % n as u32, d)).collect();
        let (mut a, mut b) = (Store::new(n), Store::new(n));
        let (mut src, mut dst) = (a.cluster(), b.cluster());
        give_index(&mut src, ClusterTimeline::index_work_len(n));
        let (mut model, mut other): (Model, Model) = (vec![Vec::new(); n], vec![Vec::new(); n]);
        let mut bufs = Bufs::new(n);
        for (i, &op) in ops.iter().enumerate() {
            step(&mut src, &mut model, i, op, &mut bufs)?;
        }
        // The copy had bookings and a history of its own.
        for (i, &op) in mine.iter().enumerate() {
            step(&mut dst, &mut other, 1000 + i, op, &mut bufs)?;
        }
        dst.copy_from(&src).unwrap();
        shows(&dst, &model)?;
        prop_assert_eq!(observe(&mut dst, &queries), observe(&mut src, &queries));
        // And it goes on as its source would.
        let mut copied = model.clone();
        for (i, &op) in after.iter().enumerate() {
            step(&mut src, &mut model, 2000 + i, op, &mut bufs)?;
            step(&mut dst, &mut copied, 2000 + i, op, &mut bufs)?;
            shows(&dst, &copied)?;
            prop_assert_eq!(observe(&mut dst, &queries), observe(&mut src, &queries));
        }
    }
}
