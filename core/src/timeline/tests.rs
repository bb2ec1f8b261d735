//! The timeline's tests: worked examples, and properties held against a brute force and a
//! node-by-node model (every answer by groups and by the void index is the one node by node).

extern crate std;
use super::groups::Span;
use super::void_index::{by_end_key, by_start_key};
use super::*;
use crate::config::MAX_BOOKINGS_PER_NODE;
use crate::error::InputError;
use crate::task::TaskId;
use proptest::prelude::*;
use std::format;
use std::string::String;
use std::vec;
use std::vec::Vec;

fn m(x: u64) -> Micros {
    Micros(x)
}

fn run(task: u32, s: u64, e: u64) -> Booking {
    Booking {
        start: m(s),
        end: m(e),
        task: TaskId(task),
        kind: BookingKind::Running,
    }
}

fn place(task: u32, s: u64, e: u64) -> Booking {
    Booking {
        kind: BookingKind::PlaceHolder,
        ..run(task, s, e)
    }
}

/// A cluster's storage: its nodes' slots and their group bookkeeping.
struct Store {
    nodes: Vec<NodeTimeline>,
    members: Vec<u32>,
}
impl Store {
    fn new(n: usize) -> Store {
        Store {
            nodes: vec![NodeTimeline::new(); n],
            members: vec![0; ClusterTimeline::members_len(n)],
        }
    }
    fn cluster(&mut self) -> ClusterTimeline<'_> {
        ClusterTimeline::new(&mut self.nodes, &mut self.members).unwrap()
    }
}

fn leak(n: usize) -> &'static mut [Void] {
    std::boxed::Box::leak(vec![Void::default(); n].into_boxed_slice())
}

/// Gives `c` a void index with room for every void and `work` entries to apply changes.
fn give_index(c: &mut ClusterTimeline<'_>, work: usize) {
    let l = ClusterTimeline::scratch_len(c.slots.len());
    c.set_index(leak(l), leak(l), leak(work));
}

struct Bufs {
    a: Vec<u64>,
    b: Vec<u64>,
}
impl Bufs {
    fn new(n: usize) -> Bufs {
        let l = ClusterTimeline::scratch_len(n);
        Bufs {
            a: vec![0; l],
            b: vec![0; l],
        }
    }
    fn scratch(&mut self) -> Scratch<'_> {
        Scratch::new(&mut self.a, &mut self.b)
    }
}

/// The earliest start both ways, sweep and void index, which must agree.
fn earliest(c: &mut ClusterTimeline<'_>, t: u64, k: u32, d: u64) -> Option<u64> {
    let n = c.slots.len();
    let mut b = Bufs::new(n);
    let swept = c
        .swept_earliest(m(t), NodeCount(k), m(d), &mut b.scratch())
        .unwrap();
    give_index(c, ClusterTimeline::index_work_len(n));
    let indexed = c
        .earliest_start(m(t), NodeCount(k), m(d), &mut b.scratch())
        .unwrap();
    if k > 0 && k as usize <= n {
        assert!(
            c.index.as_ref().is_some_and(|ix| ix.built.is_some()),
            "the index was used"
        );
    }
    assert_eq!(
        swept, indexed,
        "sweep and index disagree for t={t} k={k} d={d}"
    );
    c.index = None;
    if k > 0 && k as usize <= n {
        let by_nodes = c
            .swept_by_nodes(m(t), k as usize, m(d), &mut b.scratch())
            .unwrap();
        assert_eq!(
            swept, by_nodes,
            "group and node sweeps disagree for t={t} k={k} d={d}"
        );
    }
    swept.map(|f| f.start.0)
}

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
    assert_eq!(c.complete_from(TaskId(1), m(0), m(10)), 0, "pruned already");
    assert_eq!(c.loosened(), l);
    c.clear_place_holders();
    assert_eq!(c.loosened(), l + 1);
    c.clear_place_holders();
    assert_eq!(c.loosened(), l + 1, "nothing to clear");
    assert_eq!(c.complete_from(TaskId(3), m(30), m(35)), 1);
    assert_eq!(c.loosened(), l + 2);
    assert_eq!(c.remove_task_from(TaskId(100), m(100)), 1);
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
        ca.complete_from(TaskId(1), m(0), m(8)),
        cb.complete(TaskId(1), m(8))
    );
    assert_eq!(
        ca.remove_task_from(TaskId(3), m(40)),
        cb.remove_task(TaskId(3))
    );
    assert_eq!(ca.remove_task_from(TaskId(9), m(40)), 0, "no such task");
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

/// Brute force: try t and every booking end after it, in order.
fn brute(nodes: &[Vec<(u64, u64)>], t: u64, k: usize, d: u64) -> Option<u64> {
    let mut cands: Vec<u64> = vec![t];
    for n in nodes {
        for &(_, e) in n {
            if e > t {
                cands.push(e);
            }
        }
    }
    cands.sort();
    for s in cands {
        let free = nodes
            .iter()
            .filter(|n| n.iter().all(|&(a, b)| b <= s || a >= s + d))
            .count();
        if free >= k {
            return Some(s);
        }
    }
    None
}

/// The node choice node by node (seed 000 §III.F): every node free over `[s, s + d)`,
/// keyed by (new idle voids, void size, node index) with its void starting no earlier
/// than `now`, sorted; the first `k`, in node order.
fn chosen_by_nodes(c: &ClusterTimeline<'_>, now: u64, s: u64, d: u64, k: usize) -> Vec<u32> {
    let e = s + d;
    let mut keyed: Vec<(u64, u64, u32)> = c
        .nodes()
        .enumerate()
        .filter_map(|(i, node)| {
            let (a, b) = node.void_around(m(s), m(e))?;
            let (a, b) = (a.0.max(now), b.0);
            let new = (s > a) as u64 + (b != u64::MAX && e < b) as u64;
            let size = if b == u64::MAX { u64::MAX } else { b - a };
            Some((new, size, i as u32))
        })
        .collect();
    keyed.sort_unstable();
    let mut out: Vec<u32> = keyed.iter().take(k).map(|x| x.2).collect();
    out.sort_unstable();
    out
}

fn arb_cluster() -> impl Strategy<Value = Vec<Vec<(u64, u64)>>> {
    prop::collection::vec(prop::collection::vec((0u64..200, 1u64..40), 0..5), 1..7).prop_map(
        |nodes| {
            nodes
                .into_iter()
                .map(|raw| {
                    // Turn (gap, length) pairs into sorted, disjoint bookings.
                    let mut t = 0;
                    let mut v = Vec::new();
                    for (gap, len) in raw {
                        let s = t + gap % 50;
                        v.push((s, s + len));
                        t = s + len;
                    }
                    v
                })
                .collect()
        },
    )
}

fn build<'a>(
    store: &'a mut Store,
    nodes: &[Vec<(u64, u64)>],
    placeholders: bool,
) -> ClusterTimeline<'a> {
    let mut c = store.cluster();
    let mut id = 0;
    for (i, n) in nodes.iter().enumerate() {
        for &(s, e) in n {
            id += 1;
            let b = if placeholders && id % 2 == 0 {
                place(id, s, e)
            } else {
                run(id, s, e)
            };
            c.book(&[i as u32], b).unwrap();
        }
    }
    c
}

/// The cluster's (fresh) void index equals the one a rebuild gives.
fn index_is_its_rebuild(c: &mut ClusterTimeline<'_>) -> Result<(), TestCaseError> {
    let ix = c.index.as_ref().unwrap();
    let (a, b) = (ix.by_start[..ix.len].to_vec(), ix.by_end[..ix.len].to_vec());
    c.index.as_mut().unwrap().built = None;
    prop_assert!(c.fresh_index());
    let ix = c.index.as_ref().unwrap();
    prop_assert_eq!(&a[..], &ix.by_start[..ix.len]);
    prop_assert_eq!(&b[..], &ix.by_end[..ix.len]);
    Ok(())
}

/// Node `i`'s voids, `[a, b)` in time order, from its bookings.
fn voids_of(c: &ClusterTimeline<'_>, i: u32) -> Vec<(u64, u64)> {
    let mut v = Vec::new();
    let mut a = 0;
    for b in c.node(i).unwrap().bookings() {
        if b.start.0 > a {
            v.push((a, b.start.0));
        }
        a = b.end.0;
    }
    v.push((a, u64::MAX));
    v
}

/// The cluster's (fresh) void index holds every node's voids: each distinct void once,
/// weighted by the nodes that have it, sorted both ways with the weights before each
/// summed.
fn index_is_every_nodes_voids(c: &ClusterTimeline<'_>) -> Result<(), TestCaseError> {
    let ix = c.index.as_ref().unwrap();
    let (starts, ends) = (&ix.by_start[..ix.len], &ix.by_end[..ix.len]);
    prop_assert!(starts
        .windows(2)
        .all(|w| by_start_key(&w[0]) < by_start_key(&w[1])));
    prop_assert!(ends
        .windows(2)
        .all(|w| by_end_key(&w[0]) < by_end_key(&w[1])));
    for side in [starts, ends] {
        let mut w = 0;
        for v in side {
            prop_assert_eq!(v.before, w);
            w += v.weight;
        }
        prop_assert_eq!(ix.total, w);
    }
    // The same voids both ways.
    let (mut a, mut b) = (starts.to_vec(), ends.to_vec());
    for v in a.iter_mut().chain(b.iter_mut()) {
        v.before = 0;
    }
    a.sort_unstable_by_key(by_start_key);
    b.sort_unstable_by_key(by_start_key);
    prop_assert_eq!(&a, &b);
    let indexed: Vec<(u64, u64, u32)> =
        starts.iter().map(|v| (v.start, v.end, v.weight)).collect();
    // Those that end after the horizon (no query starts before it), counted by void.
    let h = c.horizon.0;
    let mut held: Vec<(u64, u64)> = (0..c.slots.len() as u32)
        .flat_map(|i| voids_of(c, i))
        .filter(|&(_, b)| b > h)
        .collect();
    held.sort_unstable();
    let mut counted: Vec<(u64, u64, u32)> = Vec::new();
    for (a, b) in held {
        match counted.last_mut() {
            Some(last) if (last.0, last.1) == (a, b) => last.2 += 1,
            _ => counted.push((a, b, 1)),
        }
    }
    prop_assert_eq!(indexed, counted);
    Ok(())
}

/// Distinct groups hold distinct bookings (as after a merge).
fn groups_are_distinct(c: &ClusterTimeline<'_>) -> Result<(), TestCaseError> {
    let live = c.groups.live();
    for (i, &a) in live.iter().enumerate() {
        for &b in &live[i + 1..] {
            prop_assert_ne!(
                c.slots[a as usize].bookings(),
                c.slots[b as usize].bookings(),
                "groups {} and {} hold the same bookings",
                a,
                b
            );
        }
    }
    Ok(())
}

/// The groups partition the nodes: each group's list starts at its name and goes up in
/// node order, `of` names each member's group (no node left marked taken), the sizes
/// are the lists' lengths and add up to the nodes, and each group's span is its
/// bookings'.
fn groups_are_a_partition(c: &ClusterTimeline<'_>) -> Result<(), TestCaseError> {
    let (n, gr) = (c.slots.len(), &c.groups);
    prop_assert_eq!(c.groups(), gr.count);
    let mut seen = vec![false; n];
    let mut total = 0;
    for &g in gr.live() {
        prop_assert_eq!(gr.span(g), Span::of(c.slots[g as usize].bookings()));
        // No more than every node, should a list run in a circle.
        let list: Vec<u32> = gr.members(g).take(n + 1).collect();
        prop_assert_eq!(list.first(), Some(&g), "group {} starts at its name", g);
        prop_assert!(
            list.windows(2).all(|w| w[0] < w[1]),
            "group {} in node order: {:?}",
            g,
            list
        );
        prop_assert_eq!(list.len(), gr.size[g as usize] as usize);
        for &x in &list {
            prop_assert_eq!(gr.of[x as usize], g, "node {} of group {}", x, g);
            prop_assert!(!seen[x as usize], "node {} in two groups", x);
            seen[x as usize] = true;
        }
        total += list.len();
    }
    prop_assert_eq!(total, n);
    for g in 0..n as u32 {
        if !gr.live().contains(&g) {
            prop_assert_eq!(gr.size[g as usize], 0, "no group is named {}", g);
        }
    }
    Ok(())
}

/// Every node's bookings, kept node by node: what the cluster must show.
type Model = Vec<Vec<Booking>>;

/// Books `nodes` in the model, all or nothing, as the cluster must; whether it could.
fn model_book(model: &mut Model, nodes: &[u32], b: Booking) -> bool {
    for (j, &x) in nodes.iter().enumerate() {
        let Some(bs) = model.get(x as usize) else {
            return false;
        };
        if nodes[..j].contains(&x) || bs.iter().any(|o| o.start < b.end && b.start < o.end) {
            return false;
        }
    }
    for &x in nodes {
        let bs = &mut model[x as usize];
        let i = bs.partition_point(|o| o.start < b.start);
        bs.insert(i, b);
    }
    true
}

/// The cluster shows the model: every node's bookings and the counts; nodes of a group
/// have equal bookings, and the groups partition the nodes. Its index, when fresh, holds
/// every node's voids.
fn shows(c: &ClusterTimeline<'_>, model: &Model) -> Result<(), TestCaseError> {
    groups_are_a_partition(c)?;
    prop_assert_eq!(c.nodes().len(), model.len());
    for (i, (node, bs)) in c.nodes().zip(model).enumerate() {
        prop_assert_eq!(node.bookings(), &bs[..], "node {}", i);
    }
    for &g in c.groups.live() {
        for x in c.groups.members(g) {
            prop_assert_eq!(&model[x as usize], &model[g as usize]);
        }
    }
    let all = || model.iter().flatten();
    let held = all().filter(|b| b.kind == BookingKind::PlaceHolder).count();
    prop_assert_eq!(c.held() as usize, held);
    prop_assert_eq!(c.booked as usize, all().count());
    prop_assert!(all().all(|b| c.first_end <= b.end));
    if c.index_fresh() {
        index_is_every_nodes_voids(c)?;
    }
    Ok(())
}

/// One step of a random history: what (see [`step`]), nodes (a mask), then three numbers.
type Op = (u8, u32, u64, u64, u64);

fn arb_ops(most: usize) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        (0u8..10, any::<u32>(), 0u64..12, 1u64..5, 0u64..64),
        1..most,
    )
}

/// Applies `op` (the `i`-th of a history) to the cluster and to the model, checking what
/// the cluster answers against the model; returns whether the change ended in a merge.
/// Times are multiples of 10, so that groups often have equal voids, and every booking is
/// a task of its own (named by `i`), so that groups are split and joined again.
fn step(
    c: &mut ClusterTimeline<'_>,
    model: &mut Model,
    i: usize,
    op: Op,
    bufs: &mut Bufs,
) -> Result<bool, TestCaseError> {
    let n = model.len() as u32;
    let (what, mask, a, len, x) = op;
    let mut nodes: Vec<u32> = (0..n).filter(|&j| j < 32 && mask >> j & 1 == 1).collect();
    let (s, e, d) = (a * 10, (a + len) * 10, len * 10);
    let task = TaskId(1 + i as u32);
    let kinds = [
        BookingKind::Running,
        BookingKind::PlaceHolder,
        BookingKind::Reserved,
    ];
    match what {
        // Any nodes (in either order): taken whole, in part, or refused on an overlap.
        0..=2 => {
            let b = Booking {
                start: m(s),
                end: m(e),
                task,
                kind: kinds[what as usize],
            };
            if x % 2 == 1 {
                nodes.reverse();
            }
            let ok = model_book(model, &nodes, b);
            prop_assert_eq!(c.book(&nodes, b).is_ok(), ok);
        }
        // A list refused whole: a node twice or one the cluster does not have, anywhere.
        3 => {
            let bad = match nodes.first() {
                Some(&f) if x % 2 == 0 => f,
                _ => n,
            };
            let at = x as usize % (nodes.len() + 1);
            nodes.insert(at, bad);
            prop_assert!(c.book(&nodes, run(task.0, s, e)).is_err());
        }
        // Chosen and booked in one step, where the nodes may not be free: the nodes
        // chosen one by one, or nothing at all.
        4 if x / 3 % 3 == 2 => {
            // No choice starts before the last prune's `now`.
            let (s, e) = (s.max(c.horizon.0), s.max(c.horizon.0) + d);
            let k = nodes.len().max(1) as u32;
            let want = chosen_by_nodes(c, s, s, d, k as usize);
            let b = Booking {
                start: m(s),
                end: m(e),
                task,
                kind: kinds[x as usize % 3],
            };
            let mut keys = vec![0u64; 2 * c.groups()];
            let ok = c.book_chosen(m(s), k, b, &mut keys).unwrap();
            prop_assert_eq!(ok, want.len() == k as usize);
            if ok {
                prop_assert!(model_book(model, &want, b));
            }
        }
        // The controller's way: the earliest start, the nodes chosen there (and booked
        // by the list, or chosen and booked in one step).
        4 => {
            let s = s.max(c.horizon.0);
            let k = nodes.len().max(1) as u32;
            let fit = c.earliest_start(m(s), NodeCount(k), m(d), &mut bufs.scratch());
            if let (Some(f), true) = (fit.as_ref().unwrap(), x / 3 % 3 == 1) {
                let want = chosen_by_nodes(c, s, f.start.0, d, k as usize);
                let b = Booking {
                    start: f.start,
                    end: m(f.start.0 + d),
                    task,
                    kind: kinds[x as usize % 3],
                };
                let mut keys = vec![0u64; 2 * c.groups()];
                prop_assert!(c.book_chosen(m(s), k, b, &mut keys).unwrap());
                prop_assert!(model_book(model, &want, b));
            } else if let Some(f) = fit.unwrap() {
                let mut out = vec![0u32; k as usize];
                let mut keys = vec![0u64; 2 * c.groups()];
                let got = c.choose_nodes(m(s), f.start, m(d), &mut out, &mut keys);
                prop_assert_eq!(got, k as usize);
                prop_assert_eq!(&out, &chosen_by_nodes(c, s, f.start.0, d, k as usize));
                let b = Booking {
                    start: f.start,
                    end: m(f.start.0 + d),
                    task,
                    kind: kinds[x as usize % 3],
                };
                prop_assert!(model_book(model, &out, b));
                prop_assert!(c.book(&out, b).is_ok());
            }
        }
        5 => {
            let had = model
                .iter()
                .flatten()
                .any(|b| b.kind == BookingKind::PlaceHolder);
            c.clear_place_holders();
            for bs in model.iter_mut() {
                bs.retain(|b| b.kind != BookingKind::PlaceHolder);
            }
            return Ok(had);
        }
        6 => {
            let before: usize = model.iter().map(Vec::len).sum();
            c.prune(m(s));
            for bs in model.iter_mut() {
                bs.retain(|b| b.end.0 > s);
            }
            return Ok(model.iter().map(Vec::len).sum::<usize>() < before);
        }
        // A task booked now ended, taken back, or started, each of the ways there are.
        7 | 8 => {
            // Only a reservation starts (a place-holder is cleared, never started).
            let all: Vec<Booking> = model
                .iter()
                .flatten()
                .filter(|b| what == 7 || b.kind != BookingKind::PlaceHolder)
                .copied()
                .collect();
            let Some(&b) = all.get(x as usize % all.len().max(1)) else {
                return Ok(false);
            };
            let on = model
                .iter()
                .filter(|bs| bs.iter().any(|o| o.task == b.task))
                .count() as u32;
            let at = m(s.min(b.end.0));
            let got = match (what, len) {
                (7, 1) => c.remove_task_from(b.task, b.start),
                (7, 2) => c.remove_task(b.task),
                (7, 3) => c.complete(b.task, at),
                (7, _) => c.complete_from(b.task, b.start, at),
                (_, 1 | 2) => c.mark_running(b.task),
                _ => c.mark_running_from(b.task, b.start),
            };
            prop_assert_eq!(got, on);
            for bs in model.iter_mut() {
                if what == 7 {
                    bs.retain(|o| o.task != b.task);
                } else {
                    for o in bs.iter_mut().filter(|o| o.task == b.task) {
                        o.kind = BookingKind::Running;
                    }
                }
            }
        }
        _ => {
            c.merge();
            return Ok(true);
        }
    }
    Ok(false)
}

/// What can be seen of a cluster from outside: every node's bookings, the counts and
/// history, free nodes and earliest starts (and the nodes chosen there) for `queries`.
fn observe(c: &mut ClusterTimeline<'_>, queries: &[(u64, u32, u64)]) -> Vec<String> {
    let n = c.slots.len();
    let mut seen: Vec<String> = c
        .nodes()
        .map(|node| format!("{:?}", node.bookings()))
        .collect();
    seen.push(format!(
        "held {} loosened {} base {} tightened {} groups {}",
        c.held(),
        c.loosened(),
        c.base_loosened(),
        c.tightened(),
        c.groups()
    ));
    for back in [0, 1, 3, BOOKING_LOG as u32, BOOKING_LOG as u32 + 1] {
        let since = c.tightened().wrapping_sub(back);
        let log = c.booked_since(since).map(|l| l.collect::<Vec<_>>());
        seen.push(format!("{back}: {log:?}"));
    }
    let mut bufs = Bufs::new(n);
    for &(t, k, d) in queries {
        // No query starts before the last prune's `now`.
        let (t, d) = ((t * 10).max(c.horizon.0), d * 10);
        let fit = c.earliest_start(m(t), NodeCount(k), m(d), &mut bufs.scratch());
        let fit = fit.unwrap();
        let mut out = vec![0u32; k as usize];
        let mut keys = vec![0u64; 2 * n];
        let got = fit.map(|f| c.choose_nodes(m(t), f.start, m(d), &mut out, &mut keys));
        seen.push(format!(
            "{t} {k} {d}: {fit:?} {got:?} {out:?} free {} {} node-time {}",
            c.free_over(m(t), m(t + d), u32::MAX),
            c.free_over(m(t), m(t + d), k),
            c.free_node_time(m(t), m(t + d))
        ));
    }
    seen
}

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
                        prop_assert_eq!(c.remove_task_from(TaskId(2000 + i as u32), f.start), k);
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
                        prop_assert!(c.remove_task_from(TaskId(id), m(s)) > 0);
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
