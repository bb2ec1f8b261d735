//! The team's generations against the plain order of draws and evaluations.

use super::*;
use crate::nsga2::Ranking;
use std::sync::atomic::AtomicUsize;

/// A toy problem: genes are small integers; the objectives pull them apart (the sum of the
/// genes against the sum of their distances to 9), so fronts keep changing. Evaluations are
/// counted, and the `panic_at`-th one panics.
struct Toy {
    genes: usize,
    evaluations: AtomicUsize,
    panic_at: usize,
}

impl Toy {
    fn new(genes: usize) -> Toy {
        Toy {
            genes,
            evaluations: AtomicUsize::new(0),
            panic_at: usize::MAX,
        }
    }
}

impl Problem for Toy {
    type Gene = u32;
    type Scratch = Vec<u32>;
    type Memo = Vec<u32>;
    type Mutation = (usize, u32);

    fn genes(&self) -> usize {
        self.genes
    }

    fn scratch(&self) -> Vec<u32> {
        Vec::new()
    }

    fn random(&self, rng: &mut Stream) -> Vec<u32> {
        (0..self.genes).map(|_| rng.int(0, 9) as u32).collect()
    }

    fn draw_mutation(&self, rng: &mut Stream) -> (usize, u32) {
        (
            rng.int(0, self.genes as u64 - 1) as usize,
            rng.int(0, 9) as u32,
        )
    }

    fn apply_mutation(&self, c: &mut [u32], m: &(usize, u32)) {
        c[m.0] = m.1;
    }

    fn evaluate(&self, c: &[u32], scratch: &mut Vec<u32>) -> Point {
        let k = self.evaluations.fetch_add(1, Ordering::Relaxed);
        assert!(k != self.panic_at, "the evaluation that panics");
        // The scratch holds leftovers of other evaluations: results must not read them.
        scratch.push(c[0]);
        let sum: u32 = c.iter().sum();
        let far: u32 = c
            .iter()
            .enumerate()
            .map(|(i, &g)| g.abs_diff((i % 10) as u32))
            .sum();
        [sum as f64, far as f64 + (c[0] as f64) * 0.5]
    }

    fn evaluate_memo(&self, c: &[u32], memo: &mut Vec<u32>, s: &mut Vec<u32>) -> Point {
        memo.clear();
        memo.extend_from_slice(c);
        self.evaluate(c, s)
    }

    fn evaluate_child(
        &self,
        c: &[u32],
        parents: [(&[u32], &Vec<u32>); 2],
        memo: &mut Vec<u32>,
        s: &mut Vec<u32>,
    ) -> Point {
        // A memo is a copy of its chromosome: a child's parents must come with theirs.
        for (pc, pm) in parents {
            assert_eq!(pc, &pm[..]);
        }
        self.evaluate_memo(c, memo, s)
    }
}

fn params(population: usize) -> Params {
    Params {
        population,
        mutation: 0.5,
        ranking: Ranking::Dominators,
    }
}

/// `generations` of a fresh run on `threads`, in calls of `chunk` generations (through
/// `step` when `chunk` is 1).
fn run(
    toy: &Toy,
    population: usize,
    threads: usize,
    generations: u64,
    chunk: u64,
) -> Vec<(Vec<u32>, Point)> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| {
        let mut ga = Nsga2::new(
            toy,
            params(population),
            Vec::new(),
            Stream::new(3, 0, "toy", 0),
        );
        let mut ticks = Vec::new();
        while ga.generation() < generations {
            if chunk == 1 {
                ga.step();
                ticks.push(ga.generation());
            } else {
                let until = (ga.generation() + chunk).min(generations);
                ga.evolve(until, |g| ticks.push(g));
            }
        }
        assert_eq!(
            ticks,
            (1..=generations).collect::<Vec<_>>(),
            "one tick a generation"
        );
        ga.population()
            .iter()
            .cloned()
            .zip(ga.objectives().iter().copied())
            .collect()
    })
}

#[test]
fn calls_and_threads_change_nothing() {
    let toy = Toy::new(24);
    for population in [2, 7, 20] {
        let one = run(&toy, population, 1, 30, 1);
        for (threads, chunk) in [(1, 30), (2, 1), (2, 30), (2, 7), (3, 11), (4, 30)] {
            assert_eq!(
                run(&toy, population, threads, 30, chunk),
                one,
                "population {population}, {threads} threads, {chunk} a call"
            );
        }
    }
}

#[test]
fn every_child_is_evaluated_once_a_generation() {
    let toy = Toy::new(10);
    run(&toy, 9, 2, 25, 25);
    // The first population, then nine children a generation.
    assert_eq!(toy.evaluations.load(Ordering::Relaxed), 9 + 9 * 25);
}

#[test]
fn populations_side_by_side_share_the_threads_and_change_nothing() {
    // Teams on a pool busy with other teams: a helper may join another population's team
    // or none; the results are the ones of each population alone.
    let toy = Toy::new(16);
    let alone: Vec<_> = (0..5u32)
        .map(|p| {
            let mut ga = Nsga2::new(&toy, params(10), Vec::new(), Stream::new(4, p, "toy", 0));
            ga.evolve(40, |_| {});
            ga.population().to_vec()
        })
        .collect();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let together: Vec<_> = pool.install(|| {
        (0..5u32)
            .into_par_iter()
            .map(|p| {
                let mut ga = Nsga2::new(&toy, params(10), Vec::new(), Stream::new(4, p, "toy", 0));
                for until in [3, 17, 40] {
                    ga.evolve(until, |_| {});
                }
                ga.population().to_vec()
            })
            .collect()
    });
    assert_eq!(together, alone);
}

#[test]
fn a_panicking_evaluation_fails_the_run_rather_than_hanging_it() {
    for threads in [1, 2] {
        for panic_at in [40, 41, 77] {
            let toy = Toy {
                panic_at,
                ..Toy::new(12)
            };
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.install(|| {
                    let mut ga =
                        Nsga2::new(&toy, params(8), Vec::new(), Stream::new(5, 0, "toy", 0));
                    ga.evolve(50, |_| {});
                })
            }));
            assert!(r.is_err(), "{threads} threads, panic at {panic_at}");
        }
    }
}
