//! The timeline's earliest-start query (`ClusterTimeline::earliest_start`) on the largest
//! ESSC cluster (sp-2, 592 nodes) in a state captured in the middle of a 10k day.
//!
//! The trial is replayed to the mapping event at 16:00 (as in `mapping_event`), under Max
//! UPE with place-holders and under Conservative backfilling (the most reservations). The
//! cluster is then copied (bookings and groups of nodes, `ClusterTimeline::copy_from`) into a
//! `ClusterTimeline` of the bench's own, in two states:
//!
//! - `start`: as the event's first queries see it (place-holders of the previous event
//!   cleared, finished bookings pruned);
//! - `end` (Max UPE only): as its last queries see it, with every place-holder the event
//!   booked (the event is run on a copy of the controller first).
//!
//! The queries are those the event asks of sp-2: one per waiting task eligible there and
//! P-state, (nodes, execution time) deduplicated, all from the event's time. One iteration
//! asks all of them (criterion's throughput is in queries per second), in three ways:
//!
//! - `indexed`: with the void index fresh (what `kairos run` uses between bookings);
//! - `rebuild`: the first query after a change (the index rebuilt, then one query; the
//!   change is a `prune` that removes nothing but marks the index stale), per query;
//! - `sorted`: without a void index (the sorting sweep: the fallback, and trace replay).
//!
//! ```text
//! cargo bench --bench earliest_start
//! cargo bench --bench earliest_start -- max-upe-ph/start
//! ```

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use kairos_core::platform::ClusterId;
use kairos_core::timeline::{Booking, ClusterTimeline, Scratch, Void};
use kairos_core::units::{Micros, NodeCount};
use kairos_core::{Controller, TaskState};
use kairos_host::storage::VOIDS_PER_NODE;
use kairos_suite::{cases, copy_into, essc, selected, smoke_test, Setup};
use std::time::Duration;

const MIDDAY: Micros = Micros::from_hours(16);

/// The distinct (nodes, duration) queries the waiting tasks of `ctl` ask of cluster `c`.
fn queries(ctl: &Controller<'_>, c: ClusterId) -> Vec<(NodeCount, Micros)> {
    let platform = ctl.platform();
    let mut q: Vec<(NodeCount, Micros)> = ctl
        .tasks()
        .iter()
        .filter(|s| matches!(s.state, TaskState::Mappable | TaskState::PlaceHeld))
        .filter_map(|s| s.task.on(platform, c))
        .flat_map(|p| (0..platform.pstates() as usize).map(move |i| (p.nodes, p.etc[i])))
        .collect();
    q.sort_unstable_by_key(|&(k, d)| (k.0, d.0));
    q.dedup();
    q
}

/// Benchmarks the queries on a copy of cluster `src` of `ctl` (as of `now`; `start` clears
/// the place-holders and prunes first).
fn bench_state(
    c: &mut Criterion,
    name: &str,
    ctl: &Controller<'_>,
    src: ClusterId,
    now: Micros,
    start: bool,
    q: &[(NodeCount, Micros)],
) {
    let src = ctl.timeline(src).expect("the cluster");
    let n = src.len().0 as usize;
    let mut storage = vec![Booking::EMPTY; ClusterTimeline::bookings_len(n)];
    let mut members = vec![0u32; ClusterTimeline::members_len(n)];
    let mut voids = vec![Void::default(); 2 * VOIDS_PER_NODE * n];
    let mut a = vec![0u64; ClusterTimeline::scratch_len(n)];
    let mut b = vec![0u64; ClusterTimeline::scratch_len(n)];
    let mut tl = ClusterTimeline::new(n, &mut storage, &mut members).expect("room for the cluster");
    tl.copy_from(src).expect("a cluster of as many nodes");
    if start {
        tl.clear_place_holders();
        tl.prune(now);
    }
    let count: usize = tl.nodes().map(|x| x.bookings().len()).sum();
    let (work, sorted) = voids.split_at_mut(ClusterTimeline::index_work_len(n));
    let (by_start, by_end) = sorted.split_at_mut(sorted.len() / 2);

    // Sorted first (no index), then give the cluster its index.
    let mut scratch = Scratch::new(&mut a, &mut b);
    let answers: Vec<_> = q
        .iter()
        .map(|&(k, d)| tl.earliest_start(now, k, d, &mut scratch).expect("a query"))
        .collect();
    let found = answers.iter().filter(|f| f.is_some()).count();
    let now_starts = answers.iter().flatten().filter(|f| f.start == now).count();
    eprintln!(
        "{name}: {n} nodes ({} groups), {count} bookings, {} queries ({found} answered, \
         {now_starts} start now)",
        tl.groups(),
        q.len()
    );
    let mut group = c.benchmark_group(name);
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(q.len() as u64));
    group.bench_function("sorted", |bench| {
        bench.iter(|| {
            for &(k, d) in q {
                black_box(tl.earliest_start(now, k, d, &mut scratch).expect("a query"));
            }
        })
    });
    tl.set_index(by_start, by_end, work);
    for (&(k, d), want) in q.iter().zip(&answers) {
        let got = tl.earliest_start(now, k, d, &mut scratch).expect("a query");
        assert_eq!(got, *want, "index and sort agree");
    }
    group.bench_function("indexed", |bench| {
        bench.iter(|| {
            for &(k, d) in q {
                black_box(tl.earliest_start(now, k, d, &mut scratch).expect("a query"));
            }
        })
    });
    group.bench_function("rebuild", |bench| {
        bench.iter(|| {
            for &(k, d) in q {
                tl.prune(now);
                black_box(tl.earliest_start(now, k, d, &mut scratch).expect("a query"));
            }
        })
    });
    group.finish();
}

fn earliest_start(c: &mut Criterion) {
    // As a smoke test (`cargo test --benches`), the 5k state: quicker to reach.
    let load = if smoke_test() { 5000 } else { 10000 };
    for case in cases() {
        let states: &[&str] = match case.label {
            "max-upe-ph" => &["start", "end"],
            "conservative" => &["start"],
            _ => continue,
        };
        let prefix = format!("earliest_start/{}k/sp-2/{}", load / 1000, case.label);
        if !states
            .iter()
            .any(|s| selected(&format!("{prefix}/{s}")) || selected(&format!("{prefix}/{s}/")))
        {
            continue;
        }
        let setup = Setup::new(essc(load), &case.opts);
        let platform = &setup.trial.platform;
        let largest = (0..platform.clusters().len())
            .max_by_key(|&i| (platform.clusters()[i].nodes.0, usize::MAX - i))
            .expect("a cluster");
        let sp2 = ClusterId(largest as u8);
        let mut storage = setup.storage();
        let (mut ctl, mut driver) = setup.start(&mut storage);
        let at = driver
            .run_until(&mut ctl, MIDDAY)
            .expect("the replay to mid-day")
            .expect("a mapping event at mid-day");
        let q = queries(&ctl, sp2);
        for &state in states {
            let name = format!("{prefix}/{state}");
            if state == "start" {
                bench_state(c, &name, &ctl, sp2, at, true, &q);
            } else {
                let mut copy_storage = setup.storage();
                let mut copy = copy_into(&ctl, &mut copy_storage);
                copy.on_mapping_event(at, &mut |_| {})
                    .expect("the mapping event");
                bench_state(c, &name, &copy, sp2, at, false, &q);
            }
        }
    }
}

criterion_group!(benches, earliest_start);
criterion_main!(benches);
