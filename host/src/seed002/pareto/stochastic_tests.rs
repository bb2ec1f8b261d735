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
