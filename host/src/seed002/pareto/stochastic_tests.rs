use super::*;
use crate::nsga2::{Nsga2, Params, Ranking};

fn inst(score: Score) -> Stochastic {
    Stochastic::new(4, 80, Micros::from_secs(600), score, 20)
}

#[test]
fn power_falls_and_time_rises_with_the_p_state() {
    let s = inst(Score::Expected);
    let mut pairs = 0;
    for at in (0..s.apc.len()).step_by(PSTATES) {
        if s.mean[at] == Micros::MAX {
            continue;
        }
        pairs += 1;
        assert!(s.apc[at] > s.apc[at + 1] && s.apc[at + 1] > s.apc[at + 2]);
        // Bins are sorted (quantiles) and their mean is the mean.
        let b = &s.bins[at * BINS..(at + 1) * BINS];
        assert!(b.windows(2).all(|w| w[0] <= w[1]));
        let m = b.iter().map(|t| t.0).sum::<u64>() / BINS as u64;
        assert_eq!(Micros(m), s.mean[at]);
    }
    // 83 general types x 9 general machine types + 17 special types x 10.
    assert_eq!(pairs, 83 * 9 + 17 * 10);
}

#[test]
fn percentiles_order_the_samples_and_seeds_are_valid() {
    let s1 = inst(Score::Percentile(1));
    let s10 = inst(Score::Percentile(10));
    let s20 = inst(Score::Percentile(20));
    for (_, by) in SEEDS {
        let c = s1.seed(by);
        let mut keys: Vec<u32> = c.iter().map(|g| g.key).collect();
        keys.sort_unstable();
        assert_eq!(keys, (0..80).collect::<Vec<u32>>());
        let mut sc = s1.scratch();
        let (a, b, d) = (
            s1.evaluate(&c, &mut sc),
            s10.evaluate(&c, &mut sc),
            s20.evaluate(&c, &mut sc),
        );
        // The 1st utility (descending) is the best; the 1st energy (ascending) the least.
        assert!(a[0] <= b[0] && b[0] <= d[0], "{a:?} {b:?} {d:?}");
        assert!(a[1] <= b[1] && b[1] <= d[1], "{a:?} {b:?} {d:?}");
        // Dropped tasks cost nothing: an allocation with every task dropped is free.
        let o = s1.run_once(&c, None, &mut sc);
        assert!(o.dropped as usize <= c.len());
    }
}

#[test]
fn a_dropped_task_costs_nothing() {
    let s = inst(Score::Expected);
    // Everything on one machine: most tasks wait past their utility and are dropped.
    let e = &s.eligible[s.tasks[0].ty as usize];
    let m = *e.last().unwrap();
    let c: Vec<SGene> = (0..s.tasks.len())
        .map(|t| SGene {
            machine: if s.eligible[s.tasks[t].ty as usize].contains(&m) {
                m
            } else {
                s.eligible[s.tasks[t].ty as usize][0]
            },
            pstate: 2,
            key: t as u32,
        })
        .collect();
    let mut sc = s.scratch();
    let all = s.run_once(&c, None, &mut sc);
    assert!(all.dropped > 0);
    // Energy is the sum over the tasks that ran only.
    let mut ran = 0u64;
    let mut free = vec![Micros::ZERO; s.machine_type.len()];
    for (t, g) in c.iter().enumerate() {
        let at = s.at(t, g);
        let start = free[g.machine as usize].max(s.tasks[t].arrival);
        if s.utility(t, start + s.mean[at]) >= THETA {
            free[g.machine as usize] = start + s.mean[at];
            ran += s.mean_mj[at];
        }
    }
    assert_eq!(all.energy_j, ran as f64 / 1000.0);
}

#[test]
fn the_same_seed_gives_the_same_stochastic_population_on_one_and_two_threads() {
    let s = inst(Score::Percentile(5));
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let params = Params {
                population: 12,
                mutation: 0.5,
                ranking: Ranking::Dominators,
            };
            let seeds = SEEDS.iter().map(|(_, by)| s.seed(*by)).collect();
            let mut ga = Nsga2::new(&s, params, seeds, Stream::new(1, 0, "t", 0));
            for _ in 0..15 {
                ga.step();
            }
            (ga.population().to_vec(), ga.objectives().to_vec())
        })
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn appendix_f_trace_is_chapter_2s_generator_over_four_hours() {
    let s = Stochastic::with_arrivals(
        1,
        Arrivals::AppendixF {
            tasks: 6000,
            hours: 4,
        },
        Score::Expected,
        2,
    );
    let n = s.tasks.len();
    // Expected 6,000; the drawn count varies (per-type counts, the rate curves' phases).
    assert!((4_500..=7_500).contains(&n), "{n} tasks");
    assert!(s.tasks.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    assert!(s.tasks.iter().all(|t| t.arrival < Micros::from_hours(4)));
    // The very tasks of `generate::trial` at 36,000 a day over 4 h, no warm-up.
    let w = crate::seed002::generate::Workload {
        tasks_per_day: 36_000.0,
        horizon_hours: 4,
        warmup_hours: 0,
        ..crate::seed002::generate::Workload::chapter2(1, 0.0)
    };
    let tr = crate::seed002::generate::trial(&w, 0);
    assert_eq!(tr.tasks.len(), n);
    for (a, b) in s.tasks.iter().zip(&tr.tasks) {
        assert_eq!((a.ty, a.arrival, a.curve), (b.ty, b.arrival, b.curve));
    }
    // Special types (the first 17) arrive too, and not uniformly: some type's busiest hour
    // holds at least twice its quietest.
    assert!(s.tasks.iter().any(|t| (t.ty as usize) < 17));
    let uneven = (0..100u16).any(|ty| {
        let mut per_hour = [0u32; 4];
        for t in s.tasks.iter().filter(|t| t.ty == ty) {
            per_hour[(t.arrival.0 / Micros::from_hours(1).0) as usize] += 1;
        }
        let (lo, hi) = (
            per_hour.iter().min().unwrap(),
            per_hour.iter().max().unwrap(),
        );
        *hi >= 10 && *hi >= 2 * lo
    });
    assert!(uneven);
    // The CRN cover every drawn task.
    assert_eq!(s.crn.len(), 2 * n);
}

#[test]
fn unqueued_runs_start_and_drop_as_the_mean_time_run() {
    let s = inst(Score::Expected);
    let mut sc = s.scratch();
    let mut r = Stream::new(5, 0, "unqueued-test", 0);
    let mut differs = false;
    for (_, by) in SEEDS {
        let c = s.seed(by);
        let mean = s.run_once(&c, None, &mut sc);
        for _ in 0..10 {
            let b: Vec<u8> = (0..c.len())
                .map(|_| r.int(0, BINS as u64 - 1) as u8)
                .collect();
            let u = s.run_unqueued(&c, &b, &mut sc);
            // Every start (and so every drop) is the mean-time run's.
            assert_eq!(u.dropped, mean.dropped);
            differs |= u != s.run_once(&c, Some(&b), &mut sc);
        }
        // Both of fuzzy_both's halves under one sample stream: the first is fuzzy's.
        let (q, un) = s.fuzzy_both(&c, 5, 1, 0);
        assert_eq!(q, s.fuzzy(&c, 5, 1, 0));
        assert_eq!(un.len(), 5);
    }
    assert!(differs, "the queue never mattered: the test shows nothing");
}
