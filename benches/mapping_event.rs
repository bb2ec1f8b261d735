//! One mapping event of every heuristic on the full ESSC platform, from a state captured in
//! the middle of the day.
//!
//! For each load (5k and 10k tasks a day, trial 0) and each configuration of
//! `kairos_suite::cases` (the four comparison heuristics, the four utility-aware ones with
//! place-holders, and Max UPR with place-holders and the energy-per-resource filter), the
//! trial is replayed up to the mapping event at 16:00 (12 h into the measured day, inside the
//! working-hours burst of large tasks): every completion and arrival up to then, every
//! earlier mapping event. Each iteration then copies that controller
//! (`Controller::clone_into`, with a void index as `kairos run` gives it) and times one
//! `on_mapping_event` on the copy; the copy is not timed.
//!
//! ```text
//! cargo bench --bench mapping_event                       # everything (about 5 minutes)
//! cargo bench --bench mapping_event -- 10k/max-upe-ph     # one case
//! ```
//!
//! Before each case it prints the captured backlog and what one event decides.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use kairos_core::units::Micros;
use kairos_core::DecisionKind;
use kairos_suite::{backlog, cases, copy_into, essc, selected, smoke_test, Setup};
use std::time::{Duration, Instant};

/// Where the state is captured: the mapping event at 16:00.
const MIDDAY: Micros = Micros::from_hours(16);

fn mapping_event(c: &mut Criterion) {
    // As a smoke test (`cargo test --benches`), 5k only.
    let loads: &[u32] = if smoke_test() {
        &[5000]
    } else {
        &[5000, 10000]
    };
    for &load in loads {
        let name = format!("mapping_event/{}k", load / 1000);
        let mut group = c.benchmark_group(&name);
        group
            .sample_size(20)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(if load == 5000 { 4 } else { 8 }));
        for case in cases() {
            if !selected(&format!("{name}/{}", case.label)) {
                continue;
            }
            let t0 = Instant::now();
            let setup = Setup::new(essc(load), &case.opts);
            let mut storage = setup.storage();
            let (mut ctl, mut driver) = setup.start(&mut storage);
            let at = driver
                .run_until(&mut ctl, MIDDAY)
                .expect("the replay to mid-day")
                .expect("a mapping event at mid-day");
            let replayed = t0.elapsed();
            let b = backlog(&ctl);
            let mut copy_storage = setup.storage();
            // One event, outside criterion, for the report.
            let t1 = Instant::now();
            let mut copy = copy_into(&ctl, &mut copy_storage);
            let copied = t1.elapsed();
            let mut kinds = [0u32; 4];
            copy.on_mapping_event(at, &mut |d| {
                kinds[match d.kind {
                    DecisionKind::Start => 0,
                    DecisionKind::Reserve => 1,
                    DecisionKind::PlaceHold => 2,
                    DecisionKind::Drop => 3,
                }] += 1
            })
            .expect("the mapping event");
            // The copy's cluster list has a destructor: end its borrow of the storage now.
            drop(copy);
            eprintln!(
                "{name}/{}: state at {:.0} h (replayed in {:.1} s): {} waiting, {} running, \
                 {} reserved, {} bookings (at most {} on a node); the event decides {} starts, \
                 {} reservations, {} place-holders, {} drops; a copy takes {:.1} ms",
                case.label,
                at.as_secs_f64() / 3600.0,
                replayed.as_secs_f64(),
                b.waiting,
                b.running,
                b.reserved,
                b.bookings,
                b.max_node_bookings,
                kinds[0],
                kinds[1],
                kinds[2],
                kinds[3],
                copied.as_secs_f64() * 1e3,
            );
            group.bench_function(case.label, |bench| {
                bench.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        let mut copy = copy_into(&ctl, &mut copy_storage);
                        let t = Instant::now();
                        copy.on_mapping_event(at, &mut |d| {
                            black_box(d);
                        })
                        .expect("the mapping event");
                        total += t.elapsed();
                    }
                    total
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, mapping_event);
criterion_main!(benches);
