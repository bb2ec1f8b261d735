use super::*;
use crate::nsga2::{Nsga2, Params, Problem, Ranking};

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

/// Busy test instances: 300 tasks in 2 minutes on the 100 machines (queues, and drops), under
/// both kinds of score (the percentile over 8 samples).
fn busy(score: Score) -> &'static Stochastic {
    static EXPECTED: std::sync::LazyLock<Stochastic> = std::sync::LazyLock::new(|| {
        Stochastic::new(6, 300, Micros::from_secs(120), Score::Expected, 8)
    });
    static P3: std::sync::LazyLock<Stochastic> = std::sync::LazyLock::new(|| {
        Stochastic::new(6, 300, Micros::from_secs(120), Score::Percentile(3), 8)
    });
    match score {
        Score::Expected => &EXPECTED,
        Score::Percentile(_) => &P3,
    }
}

/// The objectives as `evaluate` gave them before it went machine by machine: every task in
/// one walk by (key, index), each machine's free time kept as it goes.
fn reference(s: &Stochastic, c: &[SGene]) -> Point {
    let pass = |bins: Option<&[u8]>| {
        let mut order: Vec<usize> = (0..c.len()).collect();
        order.sort_by_key(|&t| (c[t].key, t));
        let mut free = vec![Micros::ZERO; s.machine_type.len()];
        let (mut utility, mut energy) = (Utility::ZERO, 0u64);
        for t in order {
            let g = &c[t];
            let at = s.at(t, g);
            let start = free[g.machine as usize].max(s.tasks[t].arrival);
            if s.utility(t, start + s.mean[at]) < THETA {
                continue;
            }
            let (time, e) = match bins {
                None => (s.mean[at], s.mean_mj[at]),
                Some(b) => (
                    s.bins[at * BINS + b[t] as usize],
                    s.bins_mj[at * BINS + b[t] as usize],
                ),
            };
            let end = start + time;
            free[g.machine as usize] = end;
            utility += s.curves.utility(t, end.saturating_sub(s.tasks[t].arrival));
            energy += e;
        }
        (utility.as_f64(), energy as f64 / 1000.0)
    };
    match s.score {
        Score::Expected => {
            let (u, e) = pass(None);
            [-u, e]
        }
        Score::Percentile(x) => {
            let (mut u, mut e): (Vec<f64>, Vec<f64>) =
                (0..s.samples).map(|k| pass(Some(s.crn(k)))).unzip();
            u.sort_by(|a, b| b.total_cmp(a));
            e.sort_by(f64::total_cmp);
            [-u[x - 1], e[x - 1]]
        }
    }
}

fn memo_of(s: &Stochastic, c: &[SGene], sc: &mut SScratch) -> (Point, SMemo) {
    let mut m = SMemo::default();
    let p = s.evaluate_memo(c, &mut m, sc);
    (p, m)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// A child told how it was bred (parents near or far, either child of the crossover,
    /// the mutation's genes coinciding or not, inside the range or out), and a child told
    /// only its parents, get the objectives of the evaluation from nothing (and of the
    /// single walk evaluation was before it went by machine), and the memo it writes.
    #[test]
    fn a_bred_stochastic_child_equals_its_evaluation_from_nothing(
        seed in 0u64..1_000_000,
        apart in 0usize..40,
        far in proptest::prelude::any::<bool>(),
        lo in 0usize..300,
        len in 0usize..300,
        genes in [0usize..300, 0usize..300, 0usize..300],
        same in 0usize..4,
        mutated in proptest::prelude::any::<bool>(),
        expected in proptest::prelude::any::<bool>(),
    ) {
        let s = busy(if expected { Score::Expected } else { Score::Percentile(3) });
        let mut r = Stream::new(seed, 0, "test-bred", 0);
        let mut sc = s.scratch();
        let a = s.random(&mut r);
        let mut b = if far { s.random(&mut r) } else { a.clone() };
        for _ in 0..apart {
            s.mutate(&mut b, &mut r);
        }
        let (pa, ma) = memo_of(s, &a, &mut sc);
        let (_, mb) = memo_of(s, &b, &mut sc);
        proptest::prop_assert_eq!(pa, reference(s, &a));
        let cross = crate::nsga2::Cross { lo, hi: (lo + len).min(299) };
        let mut g = genes;
        match same {
            1 => g[1] = g[0],
            2 => g[2] = g[0],
            3 => g[2] = g[1],
            _ => {}
        }
        let e = s.eligible_machines(g[0]);
        let mutation = SMutation {
            task: g[0],
            machine: e[r.int(0, e.len() as u64 - 1) as usize],
            pstate: r.int(0, PSTATES as u64 - 1) as u8,
            swap: [g[1], g[2]],
        };
        let mutation = mutated.then_some(mutation);
        for (p, q, mp, mq) in [(&a, &b, &ma, &mb), (&b, &a, &mb, &ma)] {
            let mut child = p.clone();
            child[cross.lo..=cross.hi].copy_from_slice(&q[cross.lo..=cross.hi]);
            if let Some(m) = &mutation {
                s.apply_mutation(&mut child, m);
            }
            let (want, want_memo) = memo_of(s, &child, &mut sc);
            proptest::prop_assert_eq!(want, reference(s, &child));
            proptest::prop_assert_eq!(s.evaluate(&child, &mut sc), want);
            let parents = [(&p[..], mp), (&q[..], mq)];
            let mut got = SMemo::default();
            proptest::prop_assert_eq!(
                s.evaluate_bred(&child, parents, cross, mutation.as_ref(), &mut got, &mut sc),
                want
            );
            proptest::prop_assert_eq!(&got, &want_memo);
            let mut got = SMemo::default();
            proptest::prop_assert_eq!(s.evaluate_child(&child, parents, &mut got, &mut sc), want);
            proptest::prop_assert_eq!(&got, &want_memo);
        }
    }
}

/// The reuse is real: a child keeps its nearer parent's shares on every machine no
/// differing gene touches (a share planted in the parent's memo shows through) and runs
/// again exactly the machines one does (the planted share is gone there).
#[test]
fn a_child_keeps_its_parents_shares_on_untouched_machines() {
    let s = busy(Score::Percentile(3));
    let mut r = Stream::new(9, 0, "test-keep", 0);
    let mut sc = s.scratch();
    let a = s.random(&mut r);
    let far = s.random(&mut r);
    let (_, ma) = memo_of(s, &a, &mut sc);
    let (_, mf) = memo_of(s, &far, &mut sc);
    // A task moves to another P-state (the first whose move changes its machine's first
    // share): its machine alone differs from `a`.
    let passes = s.passes();
    let (child, want) = (0..a.len())
        .map(|t| {
            let mut child = a.clone();
            child[t].pstate = (a[t].pstate + 1) % PSTATES as u8;
            let (_, want) = memo_of(s, &child, &mut sc);
            (child, want)
        })
        .find(|(child, want)| {
            let m = moved_machine(child, &a);
            want.shares[m * passes] != ma.shares[m * passes]
        })
        .expect("some P-state matters");
    let moved = moved_machine(&child, &a);
    let other = (moved + 1) % s.machine_type.len();
    let mut planted = ma.clone();
    for m in [moved, other] {
        planted.shares[m * passes].energy += 1;
    }
    let mut got = SMemo::default();
    s.evaluate_child(
        &child,
        [(&far[..], &mf), (&a[..], &planted)],
        &mut got,
        &mut sc,
    );
    // Every share is the child's own but the one planted on the untouched machine.
    let mut shown = want.clone();
    shown.shares[other * passes].energy += 1;
    assert_eq!(got, shown);
}

/// The machine of the first gene where `c` and `p` differ.
fn moved_machine(c: &[SGene], p: &[SGene]) -> usize {
    let t = (0..c.len()).find(|&t| c[t] != p[t]).expect("they differ");
    c[t].machine as usize
}

/// A problem that reuses nothing and evaluates as [`reference`] does.
struct Plain(&'static Stochastic);

impl Problem for Plain {
    type Gene = SGene;
    type Scratch = ();
    type Memo = ();
    type Mutation = SMutation;
    fn genes(&self) -> usize {
        self.0.genes()
    }
    fn scratch(&self) {}
    fn random(&self, rng: &mut Stream) -> Vec<SGene> {
        self.0.random(rng)
    }
    fn draw_mutation(&self, rng: &mut Stream) -> SMutation {
        self.0.draw_mutation(rng)
    }
    fn apply_mutation(&self, c: &mut [SGene], m: &SMutation) {
        self.0.apply_mutation(c, m)
    }
    fn evaluate(&self, c: &[SGene], _: &mut ()) -> Point {
        reference(self.0, c)
    }
}

/// A run with the memos is the run without: the same population and objectives after 30
/// generations, under both kinds of score, on the busy instance, and the drops and queues
/// that make machines matter happen there.
#[test]
fn a_stochastic_run_with_memos_is_the_run_without() {
    for score in [Score::Expected, Score::Percentile(3)] {
        let s = busy(score);
        let params = Params {
            population: 16,
            mutation: 0.5,
            ranking: Ranking::Dominators,
        };
        let seeds: Vec<Vec<SGene>> = SEEDS.iter().map(|(_, by)| s.seed(*by)).collect();
        let o = s.run_once(&seeds[0], None, &mut s.scratch());
        assert!(o.dropped > 0, "{o:?}");
        let rng = || Stream::new(2, 0, "t", 0);
        let mut with = Nsga2::new(s, params, seeds.clone(), rng());
        let plain = Plain(s);
        let mut without = Nsga2::new(&plain, params, seeds, rng());
        for _ in 0..30 {
            with.step();
            without.step();
        }
        assert_eq!(with.population(), without.population());
        assert_eq!(with.objectives(), without.objectives());
    }
}
