use super::*;
use crate::nsga2::{non_dominated, Nsga2, Params, Ranking};
use crate::seed002::pareto::seeds::Seed;

/// Two machine types (one machine each), two task types; linear curves: 10 until 100 s,
/// 0 at 200 s.
fn tiny(objective: Objective) -> Instance {
    let tables = Tables {
        task_types: 2,
        machine_types: 2,
        special_types: 0,
        // Type 0: 60 s / 100 s; type 1: 50 s / 20 s.
        etc_s: vec![60.0, 100.0, 50.0, 20.0],
        // Watts: type 0 10 / 2; type 1 4 / 30.
        epc_w: vec![10.0, 2.0, 4.0, 30.0],
        source: "hand".into(),
    };
    let curve = UtilityCurve::Linear {
        start: 10.0,
        soft: Micros::from_secs(100),
        hard: Micros::from_secs(200),
        final_value: 0.0,
    };
    let tasks = vec![
        Task {
            ty: 0,
            arrival: Micros::ZERO,
            curve,
        },
        Task {
            ty: 1,
            arrival: Micros::from_secs(10),
            curve,
        },
        Task {
            ty: 0,
            arrival: Micros::from_secs(20),
            curve,
        },
    ];
    Instance::new(
        vec![0, 1],
        tables,
        tasks,
        UtilityClasses::essc20(),
        objective,
    )
    .unwrap()
}

fn g(machine: u16, key: u32) -> Gene {
    Gene::new(machine, key)
}

#[test]
fn utility_and_energy_by_hand() {
    let inst = tiny(Objective::UtilityEnergy);
    let mut s = inst.scratch();
    // Machine 0 runs task 2 (key 0) then task 0 (key 1): 20..80, 80..140; machine 1 runs
    // task 1: 10..30. Utility: task 2 done 60 s after arrival: 10; task 0 at 140 s: 6;
    // task 1 at 20 s: 10. Energy: 600 + 600 + 20 x 30 = 1,800 J.
    let p = inst.evaluate(&[g(0, 1), g(1, 2), g(0, 0)], &mut s);
    assert_eq!(p, [-26.0, 1800.0]);
    // Equal keys run by task index: task 0 (0..60) before task 2 (60..120): 10 + 10 + 10.
    let p = inst.evaluate(&[g(0, 0), g(1, 2), g(0, 0)], &mut s);
    assert_eq!(p, [-30.0, 1800.0]);
    // The scratch holds nothing between calls: the first again, same answer.
    let p = inst.evaluate(&[g(0, 1), g(1, 2), g(0, 0)], &mut s);
    assert_eq!(p, [-26.0, 1800.0]);
}

#[test]
fn makespan_and_energy_by_hand() {
    let inst = tiny(Objective::MakespanEnergy);
    let mut s = inst.scratch();
    // Machine 0: 60 + 60; machine 1: 20. Order does not matter.
    assert_eq!(
        inst.evaluate(&[g(0, 2), g(1, 0), g(0, 1)], &mut s),
        [120.0, 1800.0]
    );
    // Everything on machine 1: 100 + 20 + 100 s; 200 + 600 + 200 J.
    assert_eq!(
        inst.evaluate(&[g(1, 0), g(1, 1), g(1, 2)], &mut s),
        [220.0, 1000.0]
    );
    let m = inst.measure(&[g(0, 2), g(1, 0), g(0, 1)]);
    assert_eq!(m.machine_busy_s, vec![120.0, 20.0]);
    assert_eq!(m.machine_energy_j, vec![1200.0, 600.0]);
}

#[test]
fn seeds_by_hand() {
    let inst = tiny(Objective::UtilityEnergy);
    // Min energy: type 0 tasks to machine 1 (200 J), type 1 to machine 0 (200 J).
    let me = Seed::MinEnergy.chromosome(&inst);
    assert_eq!(
        me.iter().map(|g| g.machine).collect::<Vec<_>>(),
        vec![1, 0, 1]
    );
    // Max utility (earliest completion): task 0 to m0 (60), task 1 to m1 (30), task 2 to
    // m0 (120 against m1's 120: the lower machine).
    let mu = Seed::MaxUtility.chromosome(&inst);
    assert_eq!(
        mu.iter().map(|g| g.machine).collect::<Vec<_>>(),
        vec![0, 1, 0]
    );
    // Keys are the mapping order; for Min-Min, task 1 (done at 30) is mapped first.
    assert_eq!(mu.iter().map(|g| g.key).collect::<Vec<_>>(), vec![0, 1, 2]);
    let mm = Seed::MinMinCompletion.chromosome(&inst);
    assert_eq!(mm[1], g(1, 0));
    let mut keys: Vec<u32> = mm.iter().map(|g| g.key).collect();
    keys.sort_unstable();
    assert_eq!(keys, vec![0, 1, 2]);
}

#[test]
fn bad_instances_are_errors() {
    let t = tiny(Objective::UtilityEnergy);
    let mut tasks = t.tasks.clone();
    tasks.swap(0, 1);
    let e = Instance::new(
        vec![0, 1],
        t.tables.clone(),
        tasks,
        t.classes.clone(),
        t.objective,
    );
    assert_eq!(e.unwrap_err(), InstanceError::Unsorted(1));
    let e = Instance::new(
        vec![0, 2],
        t.tables.clone(),
        t.tasks.clone(),
        t.classes.clone(),
        t.objective,
    );
    assert_eq!(e.unwrap_err(), InstanceError::MachineType(1));
    let mut tasks = t.tasks.clone();
    tasks[2].ty = 7;
    let e = Instance::new(
        vec![0, 1],
        t.tables.clone(),
        tasks,
        t.classes.clone(),
        t.objective,
    );
    assert_eq!(e.unwrap_err(), InstanceError::Task(2));
}

fn small(objective: Objective, n: usize) -> Instance {
    spaced(objective, n, 1_000)
}

/// `n` tasks arriving `gap_ms` apart on 5 machines of 3 types, ETC about 10 s: one a second
/// keeps the machines busy; a few seconds leave them idle between tasks.
pub(super) fn spaced(objective: Objective, n: usize, gap_ms: u64) -> Instance {
    let tables =
        crate::seed002::pareto::data::cov_method(6, 3, (10.0, 0.3, 0.3), (200.0, 0.2, 0.3), 5);
    let mut r = Stream::new(5, 0, "test-tasks", 0);
    let tasks = (0..n)
        .map(|i| Task {
            ty: r.int(0, 5) as u16,
            arrival: Micros(i as u64 * gap_ms * 1_000),
            curve: UtilityCurve::essc(
                4.0,
                kairos_core::utility::Urgency::High,
                Micros::from_secs(10),
                (i % 4) as u8,
            ),
        })
        .collect();
    Instance::new(
        vec![0, 0, 1, 2, 2],
        tables,
        tasks,
        UtilityClasses::essc20(),
        objective,
    )
    .unwrap()
}

fn params() -> Params {
    Params {
        population: 20,
        mutation: 0.5,
        ranking: Ranking::Dominators,
    }
}

fn evolve(
    inst: &Instance,
    threads: usize,
    generations: u64,
) -> (Vec<Vec<Gene>>, Vec<crate::nsga2::Point>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let seeds = vec![
            Seed::MinEnergy.chromosome(inst),
            Seed::MinMinCompletion.chromosome(inst),
        ];
        let mut ga = Nsga2::new(inst, params(), seeds, Stream::new(1, 0, "test-ga", 0));
        for _ in 0..generations {
            ga.step();
        }
        (ga.population().to_vec(), ga.objectives().to_vec())
    })
}

#[test]
fn the_same_seed_gives_the_same_population_on_one_and_two_threads() {
    for objective in [Objective::UtilityEnergy, Objective::MakespanEnergy] {
        let inst = small(objective, 60);
        let one = evolve(&inst, 1, 40);
        let two = evolve(&inst, 2, 40);
        assert_eq!(one, two);
        let three = evolve(&inst, 3, 40);
        assert_eq!(one, three);
    }
}

#[test]
fn evolution_keeps_chromosomes_valid_and_objectives_true() {
    let inst = small(Objective::UtilityEnergy, 50);
    let (pop, obj) = evolve(&inst, 2, 60);
    let mut s = inst.scratch();
    for (c, p) in pop.iter().zip(&obj) {
        for (t, g) in c.iter().enumerate() {
            assert!(inst.eligible(t).contains(&g.machine));
            assert!((g.key as usize) < c.len());
        }
        assert_eq!(inst.evaluate(c, &mut s), *p);
    }
    // The front never holds a dominated point.
    let f = non_dominated(&obj);
    for &a in &f {
        assert!(!obj.iter().any(|q| crate::nsga2::dominates(q, &obj[a])));
    }
}

#[test]
fn elitism_never_loses_the_best_of_either_objective() {
    let inst = small(Objective::MakespanEnergy, 40);
    let (_, before) = evolve(&inst, 1, 5);
    let (_, after) = evolve(&inst, 1, 50);
    for k in 0..2 {
        let b = before.iter().map(|p| p[k]).fold(f64::INFINITY, f64::min);
        let a = after.iter().map(|p| p[k]).fold(f64::INFINITY, f64::min);
        assert!(a <= b, "objective {k}: {a} > {b}");
    }
}

/// The evaluation as the chapter states it, without prepared curves or memos: every task's
/// utility through `UtilityCurve::value_at`, rounded by `Utility::from_f64`.
pub(super) fn reference(inst: &Instance, c: &[Gene]) -> crate::nsga2::Point {
    let mut order: Vec<usize> = (0..c.len()).collect();
    order.sort_by_key(|&t| (c[t].key, t));
    let mut free = vec![Micros::ZERO; inst.machines()];
    let (mut utility, mut energy) = (Utility::ZERO, 0u64);
    for t in order {
        let m = c[t].machine;
        let end = free[m as usize].max(inst.tasks[t].arrival) + inst.etc(t, m);
        free[m as usize] = end;
        utility += Utility::from_f64(inst.utility(t, end));
        energy += inst.eec(t, m);
    }
    [-utility.as_f64(), energy as f64 / 1000.0]
}

#[test]
fn memo_reuse_and_prepared_curves_give_the_reference_objectives_exactly() {
    // Long enough that the population converges and children reuse most of a parent.
    let inst = small(Objective::UtilityEnergy, 120);
    let seeds = vec![Seed::MaxUtility.chromosome(&inst)];
    let mut ga = Nsga2::new(&inst, params(), seeds, Stream::new(2, 0, "test-ga", 0));
    let mut s = inst.scratch();
    for gen in 0..300 {
        ga.step();
        if gen % 50 == 49 {
            for (c, p) in ga.population().iter().zip(ga.objectives()) {
                assert_eq!(*p, reference(&inst, c), "generation {gen}");
                assert_eq!(inst.evaluate(c, &mut s), *p);
            }
        }
    }
    // A memo from another chromosome only saves work: a child evaluated against any
    // parents' memos (even unrelated ones) gets its own objectives.
    let pop = ga.population().to_vec();
    let mut memos: Vec<Memo> = Vec::new();
    for c in &pop {
        let mut m = Memo::default();
        inst.evaluate_memo(c, &mut m, &mut s);
        memos.push(m);
    }
    let mut out = Memo::default();
    for (i, c) in pop.iter().enumerate() {
        let (a, b) = ((i + 1) % pop.len(), (i + 7) % pop.len());
        let parents = [(&pop[a][..], &memos[a]), (&pop[b][..], &memos[b])];
        assert_eq!(
            inst.evaluate_child(c, parents, &mut out, &mut s),
            reference(&inst, c)
        );
        assert_eq!(out, memos[i]);
    }
}

/// A child of two parents (a range swapped, then some genes changed) evaluated against its
/// parents equals its evaluation from nothing, memo and all, for both objectives: the
/// per-machine reuse only skips machines whose task lists did not change.
#[test]
fn a_child_evaluated_against_its_parents_equals_its_evaluation_from_nothing() {
    for objective in [Objective::UtilityEnergy, Objective::MakespanEnergy] {
        let inst = small(objective, 80);
        let mut r = Stream::new(9, 0, "test-child", 0);
        let mut s = inst.scratch();
        let mut base = inst.random(&mut r);
        for round in 0..400 {
            let mut other = base.clone();
            // Parents close to each other (late in a run) and far apart (early).
            let changes = [1, 3, 10, 80][round % 4];
            for _ in 0..changes {
                inst.mutate(&mut other, &mut r);
            }
            let (mut ma, mut mb) = (Memo::default(), Memo::default());
            inst.evaluate_memo(&base, &mut ma, &mut s);
            inst.evaluate_memo(&other, &mut mb, &mut s);
            let (lo, hi) = {
                let i = r.int(0, 79) as usize;
                let j = r.int(0, 79) as usize;
                (i.min(j), i.max(j))
            };
            let mut child = base.clone();
            child[lo..=hi].copy_from_slice(&other[lo..=hi]);
            if round % 3 == 0 {
                inst.mutate(&mut child, &mut r);
            }
            let mut want = Memo::default();
            let p = inst.evaluate_memo(&child, &mut want, &mut s);
            if objective == Objective::UtilityEnergy {
                assert_eq!(p, reference(&inst, &child));
            }
            let mut got = Memo::default();
            for parents in [
                [(&base[..], &ma), (&other[..], &mb)],
                [(&other[..], &mb), (&base[..], &ma)],
            ] {
                assert_eq!(inst.evaluate_child(&child, parents, &mut got, &mut s), p);
                assert_eq!(got, want, "round {round}");
            }
            base = if round % 2 == 0 { child } else { other };
        }
    }
}

/// Two genes' words are equal exactly when the genes are, field by field (the pad never
/// differs), including genes that differ in one bit of either field.
#[test]
fn genes_compare_as_words_exactly_as_by_field() {
    let mut r = Stream::new(5, 0, "test-words", 0);
    let mut genes = vec![
        Gene::new(0, 0),
        Gene::new(u16::MAX, u32::MAX),
        Gene::new(1, 0),
        Gene::new(0, 1),
    ];
    for _ in 0..200 {
        let g = Gene::new(r.int(0, 3) as u16, r.int(0, 3) as u32);
        genes.push(g);
        genes.push(Gene::new(g.machine ^ (1 << r.int(0, 15)), g.key));
        genes.push(Gene::new(g.machine, g.key ^ (1 << r.int(0, 31))));
    }
    let words = Gene::words(&genes);
    for (a, wa) in genes.iter().zip(words) {
        for (b, wb) in genes.iter().zip(words) {
            let by_field = a.machine == b.machine && a.key == b.key;
            assert_eq!(wa == wb, by_field, "{a:?} {b:?}");
            assert_eq!(a == b, by_field);
        }
    }
}
