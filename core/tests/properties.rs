//! Properties every heuristic keeps on random small scenarios: no node double-booked, no
//! task started before its arrival, energy never over budget, every task accounted for once.
mod common;
use common::*;
use kairos_core::energy::{EnergyFilter, FilterKind};
use kairos_core::platform::{Placement, Platform};
use kairos_core::task::Task;
use kairos_core::units::{Micros, MilliJoules, MilliWatts, NodeCount};
use kairos_core::utility::UtilityClasses;
use kairos_core::{Config, TaskState};
use kairos_core::{Heuristic, Reservations};
use proptest::prelude::*;

/// A random placement: nodes, minutes per P-state, watts per P-state.
type RawPlacement = (u32, [u64; 3], [u32; 3]);
/// A random task: arrival, type, value, soft deadline, span to the hard one, real run time.
type RawTask = (u64, usize, f64, u64, u64, Option<u64>);

#[derive(Debug, Clone)]
struct Case {
    clusters: Vec<u32>,
    pstates: u8,
    types: Vec<Vec<Option<RawPlacement>>>,
    tasks: Vec<RawTask>,
    budget_kj: Option<u64>,
}

fn arb_case() -> impl Strategy<Value = Case> {
    (prop::collection::vec(2u32..9, 1..4), 1u8..4).prop_flat_map(|(clusters, pstates)| {
        let nc = clusters.len();
        let cl = clusters.clone();
        let placement = move |max: u32| {
            prop::option::weighted(
                0.8,
                (
                    1u32..=max,
                    [1u64..60, 1u64..60, 1u64..60],
                    [10u32..200, 10u32..200, 10u32..200],
                ),
            )
        };
        let type_strat = cl.iter().map(|&n| placement(n)).collect::<Vec<_>>();
        (
            Just(clusters),
            Just(pstates),
            prop::collection::vec(type_strat, 1..4),
            prop::collection::vec(
                (
                    0u64..240,
                    0usize..8,
                    1.0f64..8.0,
                    0u64..120,
                    1u64..400,
                    prop::option::weighted(0.3, 1u64..60),
                ),
                1..30,
            ),
            prop::option::weighted(0.5, 50u64..3000),
        )
            .prop_map(move |(clusters, pstates, types, tasks, budget_kj)| {
                let _ = nc;
                Case {
                    clusters,
                    pstates,
                    types,
                    tasks,
                    budget_kj,
                }
            })
    })
}

fn build(case: &Case) -> Option<(Platform, Vec<Task>)> {
    let cls: Vec<_> = case.clusters.iter().map(|&n| cluster(n)).collect();
    let mut p = Platform::new(&cls, case.pstates).unwrap();
    for t in &case.types {
        let pls: Vec<Option<Placement>> = t
            .iter()
            .map(|o| {
                o.map(|(n, etc, apc)| {
                    let mut pl = Placement {
                        nodes: NodeCount(n),
                        etc: [Micros::ZERO; 4],
                        apc: [MilliWatts(0); 4],
                    };
                    for i in 0..3 {
                        pl.etc[i] = mins(etc[i]);
                        pl.apc[i] = MilliWatts(apc[i] * 1000);
                    }
                    pl
                })
            })
            .collect();
        let _ = p.add_resolved_type(&pls);
    }
    if p.types().is_empty() {
        return None;
    }
    let ntypes = p.types().len();
    let mut tasks: Vec<Task> = case
        .tasks
        .iter()
        .map(|&(arr, ty, v, soft, span, actual)| {
            let mut t = task(arr, (ty % ntypes) as u16, linear(v, soft, soft + span));
            t.actual = actual.map(mins);
            t
        })
        .collect();
    tasks.sort_by_key(|t| t.arrival);
    Some((p, tasks))
}

fn check(
    case: &Case,
    h: Heuristic,
    r: Reservations,
    filter: FilterKind,
) -> Result<(), TestCaseError> {
    let Some((p, tasks)) = build(case) else {
        return Ok(());
    };
    let mut c = Config::new(h, mins(30), mins(300));
    c.reservations = r;
    c.filter = EnergyFilter {
        kind: filter,
        leniency: 2.0,
    };
    if let Some(kj) = case.budget_kj {
        c.budget = MilliJoules::from_joules(kj * 1000);
    }
    let run = replay(&p, &UtilityClasses::default(), c, mins(1), &tasks)
        .map_err(|e| TestCaseError::fail(format!("{h} {r:?}: {e}")))?;
    let rep = run.report;
    // Every task accounted for exactly once.
    prop_assert_eq!(rep.arrived as usize, tasks.len());
    prop_assert_eq!(rep.completed + rep.dropped + rep.unfinished, rep.arrived);
    let dropped = run
        .slots
        .iter()
        .filter(|s| s.state == TaskState::Dropped)
        .count();
    prop_assert_eq!(dropped as u32, rep.dropped);
    // Energy never over budget, after every event and at the end.
    for e in &run.after {
        prop_assert!(
            e.energy <= e.budget,
            "{} {:?}: {} > {}",
            h,
            r,
            e.energy,
            e.budget
        );
    }
    prop_assert!(rep.energy <= c.budget);
    // No task before its arrival; no cluster ever holds more nodes than it has.
    let mut events: Vec<Vec<(u64, i64)>> = vec![Vec::new(); case.clusters.len()];
    for s in &run.slots {
        if let Some(a) = s.assignment {
            prop_assert!(a.start >= s.task.arrival);
            if matches!(
                s.state,
                TaskState::Running | TaskState::Completed | TaskState::Reserved
            ) {
                let end = a.start + s.task.run_time(a.end - a.start);
                events[a.cluster.0 as usize].push((a.start.0, a.nodes.0 as i64));
                events[a.cluster.0 as usize].push((end.0, -(a.nodes.0 as i64)));
            }
        }
    }
    for (ci, ev) in events.iter_mut().enumerate() {
        ev.sort();
        let mut used = 0i64;
        for &(_, d) in ev.iter() {
            used += d;
            prop_assert!(
                used <= case.clusters[ci] as i64,
                "{} {:?}: cluster {} holds {} nodes",
                h,
                r,
                ci,
                used
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn every_heuristic_keeps_the_invariants(case in arb_case()) {
        for h in Heuristic::ALL {
            for r in [Reservations::Permanent, Reservations::PlaceHolder] {
                for f in [FilterKind::None, FilterKind::PerResource] {
                    check(&case, h, r, f)?;
                }
            }
        }
        for f in [FilterKind::PerTask, FilterKind::Adaptive] {
            check(&case, Heuristic::MaxUpr, Reservations::PlaceHolder, f)?;
        }
    }
}

/// EASY's pass leaves no waiting task that could start now (a task that cannot start at its
/// turn cannot later in the pass: bookings only add up) and at most one reservation. The
/// pass stops asking once no node is free now and takes back only its one reservation, so
/// both must still hold; without a budget or filter, nodes alone decide.
fn check_easy(case: &Case) -> Result<(), TestCaseError> {
    let Some((p, tasks)) = build(case) else {
        return Ok(());
    };
    let c = Config::new(Heuristic::Easy, mins(0), mins(100_000));
    let run = replay(&p, &UtilityClasses::default(), c, mins(1), &tasks)
        .map_err(|e| TestCaseError::fail(format!("easy: {e}")))?;
    for e in &run.after {
        prop_assert!(
            e.reserved_later <= 1,
            "at {:?}: {} reservations",
            e.now,
            e.reserved_later
        );
        prop_assert_eq!(e.startable, 0, "at {:?}: tasks could start now", e.now);
    }
    prop_assert_eq!(run.report.completed, run.report.arrived);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn easy_leaves_nothing_startable_and_one_reservation(case in arb_case()) {
        check_easy(&case)?;
    }
}
