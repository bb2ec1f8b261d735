//! The timeline's tests. This file holds what they share: storage, a brute force and a
//! node-by-node model of the cluster, the invariants checked after every change, and a
//! random history of changes; `tests/examples.rs` holds worked cases (seed 000's Fig. 5
//! among them), `tests/properties.rs` the properties held over random clusters and histories
//! (every answer by groups and by the void index is the one node by node).

extern crate std;
use super::groups::Span;
use super::void_index::{by_end_key, by_start_key};
use super::*;
use crate::error::InputError;
use crate::limits::{BOOKING_LOG, MAX_BOOKINGS_PER_NODE};
use crate::task::TaskId;
use proptest::prelude::*;
use std::format;
use std::string::String;
use std::vec;
use std::vec::Vec;

mod examples;
mod ignoring;
mod in_place;
mod pool;
mod properties;
mod stays;

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

/// A cluster's storage: its booking pool, its group bookkeeping and its booking log.
struct Store {
    n: usize,
    pool: Vec<Booking>,
    members: Vec<u32>,
    log: Vec<Logged>,
}
impl Store {
    fn new(n: usize) -> Store {
        Store::with_pool(n, ClusterTimeline::bookings_len(n))
    }
    /// A cluster of `n` nodes with a pool of `pool` bookings.
    fn with_pool(n: usize, pool: usize) -> Store {
        Store {
            n,
            pool: vec![Booking::EMPTY; pool],
            members: vec![0; ClusterTimeline::members_len(n)],
            log: vec![Logged::EMPTY; BOOKING_LOG],
        }
    }
    fn cluster(&mut self) -> ClusterTimeline<'_> {
        let mut c = ClusterTimeline::new(self.n, &mut self.pool, &mut self.members).unwrap();
        c.set_log(&mut self.log);
        c
    }
}

fn leak(n: usize) -> &'static mut [Void] {
    std::boxed::Box::leak(vec![Void::default(); n].into_boxed_slice())
}

/// Gives `c` a void index with room for every void and `work` entries to apply changes.
fn give_index(c: &mut ClusterTimeline<'_>, work: usize) {
    let l = ClusterTimeline::scratch_len(c.n);
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
    let n = c.n;
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

/// A reservation of task 999 over `[s, s + d)` (the reservation `in_place`, `stays` and
/// `ignoring` are asked about).
fn reserved(s: u64, d: u64) -> Booking {
    Booking {
        kind: BookingKind::Reserved,
        ..run(999, s, s + d)
    }
}

/// The nodes that hold a booking of the reservation's task 999, in node order.
fn reserved_nodes(c: &ClusterTimeline<'_>) -> Vec<u32> {
    c.nodes()
        .enumerate()
        .filter(|(_, n)| n.bookings().iter().any(|b| b.task == TaskId(999)))
        .map(|(i, _)| i as u32)
        .collect()
}

/// Books `k` nodes at their earliest start from `t` for `d`, chosen with `now` `t`, as
/// `b(start)`; returns the start, or `None` if there is none.
fn book_at_earliest(
    c: &mut ClusterTimeline<'_>,
    t: u64,
    k: u32,
    d: u64,
    b: impl Fn(u64) -> Booking,
) -> Option<u64> {
    let s = earliest(c, t, k, d)?;
    let mut keys = vec![0u64; 2 * c.n];
    c.book_chosen(m(t), k, b(s), &mut keys)
        .unwrap()
        .then_some(s)
}

/// The fixed sets of random cases (xorshift64 from a seed): the same cases on every run, so
/// a test can require that each answer comes up among them.
struct Cases(u64);

impl Cases {
    /// A draw in `0..n`.
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// A cluster of 2 to 7 nodes, each with up to 3 sorted, disjoint bookings.
    fn cluster(&mut self) -> Vec<Vec<(u64, u64)>> {
        let n = 2 + self.next(6) as usize;
        (0..n)
            .map(|_| {
                let mut t = 0;
                (0..self.next(4))
                    .map(|_| {
                        let s = t + self.next(30);
                        t = s + 1 + self.next(40);
                        (s, t)
                    })
                    .collect()
            })
            .collect()
    }

    /// A query over a cluster of `n` nodes: from `t`, `k` nodes for `d`.
    fn query(&mut self, n: usize) -> (u64, u32, u64) {
        (
            self.next(60),
            1 + self.next(n as u64) as u32,
            1 + self.next(50),
        )
    }
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
    let indexed: Vec<(u64, u64, u32)> = starts.iter().map(|v| (v.start, v.end, v.weight)).collect();
    // Those that end after the horizon (no query starts before it), counted by void.
    let h = c.horizon.0;
    let mut held: Vec<(u64, u64)> = (0..c.n as u32)
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
                c.pool.list(a),
                c.pool.list(b),
                "groups {} and {} hold the same bookings",
                a,
                b
            );
        }
    }
    Ok(())
}

/// The groups partition the nodes: each group's run list starts at its head and goes up
/// in node order, each run names its group, the sizes are the lists' lengths and add up
/// to the nodes, the runs tile the nodes, each group's span is its bookings', and the ids
/// in use and not are a permutation.
fn groups_are_a_partition(c: &ClusterTimeline<'_>) -> Result<(), TestCaseError> {
    let (n, gr) = (c.n, &c.groups);
    prop_assert_eq!(c.groups(), gr.count);
    let mut seen = vec![false; n];
    let mut total = 0;
    for (x, &g) in gr.live().iter().enumerate() {
        // Its entry is at its position in the list of ids in use.
        prop_assert_eq!(gr.pos[g as usize] as usize, x, "group {} out of place", g);
        prop_assert_eq!(gr.span(g), Span::of(c.pool.list(g)));
        for b in c.pool.list(g) {
            prop_assert!(
                gr.may_hold(g, b.task),
                "group {} hides task {:?}",
                g,
                b.task
            );
        }
        // No more than every node, should a list run in a circle.
        let list: Vec<u32> = gr.members(g).take(n + 1).collect();
        prop_assert_eq!(
            list.first(),
            Some(&gr.head[g as usize]),
            "group {} starts at its head",
            g
        );
        let mut r = gr.head[g as usize];
        while r != groups::NONE {
            prop_assert_eq!(gr.run_group[r as usize], g, "run {} of group {}", r, g);
            r = gr.run_next[r as usize];
        }
        prop_assert!(
            list.windows(2).all(|w| w[0] < w[1]),
            "group {} in node order: {:?}",
            g,
            list
        );
        prop_assert_eq!(list.len(), gr.size[g as usize] as usize);
        for &x in &list {
            prop_assert_eq!(gr.group_of(x), Some(g), "node {} of group {}", x, g);
            prop_assert!(!seen[x as usize], "node {} in two groups", x);
            seen[x as usize] = true;
        }
        total += list.len();
    }
    prop_assert_eq!(total, n);
    for g in 0..n as u32 {
        if !gr.live().contains(&g) {
            prop_assert_eq!(gr.size[g as usize], 0, "no group has id {}", g);
        }
    }
    let mut ids = gr.live[..n].to_vec();
    ids.sort_unstable();
    prop_assert_eq!(
        ids,
        (0..n as u32).collect::<Vec<_>>(),
        "ids are a permutation"
    );
    // The runs tile the nodes.
    let mut lo = 0usize;
    while lo < n {
        prop_assert!(gr.run_len[lo] > 0);
        lo += gr.run_len[lo] as usize;
    }
    prop_assert_eq!(lo, n);
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
        let head = c.groups.head[g as usize] as usize;
        for x in c.groups.members(g) {
            prop_assert_eq!(&model[x as usize], &model[head]);
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
                (7, 1) => c.remove_task_from(b.task, b.start, on),
                (7, 2) => c.remove_task(b.task),
                (7, 3) => c.complete(b.task, at),
                (7, _) => c.complete_from(b.task, b.start, at, on),
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
    let n = c.n;
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

/// The booking log is a cache in the caller's storage: any length (used up to a power of
/// two), empty included, and a copy into a log of another length keeps what both can hold.
#[test]
fn a_booking_log_of_any_length() {
    let book_three = |c: &mut ClusterTimeline<'_>| {
        for i in 0..3u32 {
            c.book(&[0], run(i, 10 * i as u64, 10 * i as u64 + 5))
                .unwrap();
        }
    };
    // Empty: nothing past a booking is known, nothing since now is.
    let mut store = Store::new(2);
    store.log.clear();
    let mut empty = store.cluster();
    book_three(&mut empty);
    assert!(empty.booked_since(0).is_none());
    assert_eq!(empty.booked_since(3).unwrap().count(), 0);
    // Three entries: two are used.
    let mut store = Store::new(2);
    store.log.truncate(3);
    let mut short = store.cluster();
    book_three(&mut short);
    assert!(short.booked_since(0).is_none());
    let last_two: Vec<u64> = short.booked_since(1).unwrap().map(|b| b.start).collect();
    assert_eq!(last_two, vec![10, 20]);
    // A full log copied into the short one and back.
    let mut full_store = Store::new(2);
    let mut full = full_store.cluster();
    book_three(&mut full);
    let mut store = Store::new(2);
    store.log.truncate(2);
    let mut copy = store.cluster();
    copy.copy_from(&full).unwrap();
    assert!(copy.booked_since(0).is_none());
    let got: Vec<Logged> = copy.booked_since(1).unwrap().collect();
    let want: Vec<Logged> = full.booked_since(1).unwrap().collect();
    assert_eq!(got, want);
    let mut again_store = Store::new(2);
    let mut again = again_store.cluster();
    again.copy_from(&copy).unwrap();
    assert!(again.booked_since(0).is_none(), "older than the copy held");
    assert_eq!(again.booked_since(1).unwrap().collect::<Vec<_>>(), want);
}

/// A span decides "not free" for a run longer than every void between its bookings, and
/// leaves shorter runs that overlap them to the bookings.
#[test]
fn a_span_knows_its_longest_void() {
    let bs = [run(1, 0, 10), run(2, 15, 20), run(3, 40, 50)];
    let sp = Span::of(&bs);
    // The voids between are [10, 15) and [20, 40): the longest is 20 long.
    assert_eq!(sp.decides(21, 42), Some(None));
    assert_eq!(sp.decides(20, 40), None);
    assert_eq!(sp.decides(11, 14), None);
    assert_eq!(sp.decides(50, 60), Some(Some((50, u64::MAX))));
    assert_eq!(Span::of(&bs[..1]).decides(5, 6), Some(None));
}

/// A group's task filter has the bits of every task it holds, through bookings, a split and
/// a removal; a removal still finds the task (the filter only skips groups).
#[test]
fn a_groups_task_filter_follows_its_bookings() {
    let mut store = Store::new(4);
    let mut c = store.cluster();
    c.book(&[0, 1], run(7, 0, 10)).unwrap();
    c.book(&[1, 2], run(9, 20, 30)).unwrap();
    for g in c.groups.live().to_vec() {
        for b in c.pool.list(g) {
            assert!(c.groups.may_hold(g, b.task));
        }
    }
    let g3 = c.groups.group_of(3).unwrap();
    assert!(c.pool.list(g3).is_empty());
    assert!(!c.groups.may_hold(g3, TaskId(7)) && !c.groups.may_hold(g3, TaskId(9)));
    assert_eq!(c.remove_task_from(TaskId(9), m(20), 2), 2);
    let g2 = c.groups.group_of(2).unwrap();
    assert!(
        !c.groups.may_hold(g2, TaskId(9)),
        "the filter follows the removal"
    );
}

/// The positions whose groups may hold a booking of `task` starting at `s`, one by one:
/// what [`Holding`](super::groups::Holding)'s steps must give.
fn holding_one_by_one(c: &ClusterTimeline<'_>, task: TaskId, s: u64) -> Vec<usize> {
    let gr = &c.groups;
    (0..gr.count)
        .filter(|&p| {
            let bits = super::groups::task_bit(task);
            gr.holds_at(p) & bits == bits && gr.span(gr.live[p]).may_start(s)
        })
        .collect()
}

proptest! {
    /// The walk over the groups that may hold a task's booking gives, in position order,
    /// exactly the positions whose filter has the task's bits and whose span may start the
    /// booking, over clusters of more groups than one step tests (a booking of its own on
    /// each of a random set of nodes, several tasks a filter bit), for every task and start
    /// and for tasks and starts that are nowhere.
    #[test]
    fn the_walk_over_a_tasks_groups_is_the_filter(
        n in 1usize..80,
        books in prop::collection::vec((any::<u64>(), 0u64..6, 1u64..4, 0u32..200), 0..60),
    ) {
        let mut store = Store::new(n);
        let mut c = store.cluster();
        let mut asked = vec![(TaskId(1_000), 0u64), (TaskId(7), 35)];
        for &(mask, a, len, task) in &books {
            let nodes: Vec<u32> = (0..n as u32).filter(|&j| mask >> (j % 64) & 1 == 1).collect();
            let (s, e) = (a * 10, (a + len) * 10);
            if c.book(&nodes, run(task, s, e)).is_ok() {
                asked.push((TaskId(task), s));
                asked.push((TaskId(task), s + 5));
            }
        }
        for (task, s) in asked {
            let mut walk = super::groups::Holding::new(super::groups::task_bit(task), s);
            let mut got = Vec::new();
            while let Some(p) = walk.next(&c.groups) {
                got.push(p);
            }
            prop_assert_eq!(got, holding_one_by_one(&c, task, s), "task {:?} at {}", task, s);
        }
    }
}
