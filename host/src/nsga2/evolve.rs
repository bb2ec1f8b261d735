//! The population and one NSGA-II generation (§5.4.4, Algorithm 1).

use super::sort::{non_dominated, select, Ranking};
use super::Point;
use crate::generate::rng::Stream;
use rayon::prelude::*;
use std::sync::{Mutex, TryLockError};

/// What NSGA-II optimises: chromosomes of a fixed number of genes, a random one, the
/// mutation, and the evaluation to two minimised objectives.
pub trait Problem: Sync {
    /// One gene.
    type Gene: Copy + Send + Sync;
    /// Per-thread working memory of [`Problem::evaluate`].
    type Scratch: Send;
    /// What evaluating a chromosome leaves for its children's evaluations to reuse
    /// ([`Problem::evaluate_child`]); `()` for a problem that reuses nothing.
    type Memo: Default + Send + Sync;
    /// Genes per chromosome.
    fn genes(&self) -> usize;
    /// Fresh working memory.
    fn scratch(&self) -> Self::Scratch;
    /// A uniformly random chromosome.
    fn random(&self, rng: &mut Stream) -> Vec<Self::Gene>;
    /// A mutation's random draws: made on the calling thread, in the run's one stream, before
    /// the children are made (in parallel); so a mutation's draws must not depend on the
    /// chromosome it will change.
    type Mutation: Copy + Send + Sync;
    /// Draws one mutation (called with probability `p_m` per child).
    fn draw_mutation(&self, rng: &mut Stream) -> Self::Mutation;
    /// Applies a drawn mutation to `c` in place.
    fn apply_mutation(&self, c: &mut [Self::Gene], m: &Self::Mutation);
    /// Mutates `c` in place: [`Problem::draw_mutation`] then [`Problem::apply_mutation`].
    fn mutate(&self, c: &mut [Self::Gene], rng: &mut Stream) {
        let m = self.draw_mutation(rng);
        self.apply_mutation(c, &m);
    }
    /// The objectives of `c`; a pure function of `c` (the scratch holds no state between
    /// calls), so evaluations may run on any thread in any order.
    fn evaluate(&self, c: &[Self::Gene], scratch: &mut Self::Scratch) -> Point;
    /// [`Problem::evaluate`] that also writes `c`'s memo.
    fn evaluate_memo(
        &self,
        c: &[Self::Gene],
        _memo: &mut Self::Memo,
        scratch: &mut Self::Scratch,
    ) -> Point {
        self.evaluate(c, scratch)
    }
    /// The objectives of child `c` given its two parents (their chromosomes and memos),
    /// writing `c`'s memo: must be exactly [`Problem::evaluate`]'s (the parents only save
    /// work), so that a run does not depend on which evaluations could reuse what.
    fn evaluate_child(
        &self,
        c: &[Self::Gene],
        _parents: [(&[Self::Gene], &Self::Memo); 2],
        memo: &mut Self::Memo,
        scratch: &mut Self::Scratch,
    ) -> Point {
        self.evaluate_memo(c, memo, scratch)
    }
    /// [`Problem::evaluate_child`] told how `c` was bred from its parents: `parents[0]`'s
    /// genes outside `cross`, `parents[1]`'s inside, then `mutation` (if any) applied. Must
    /// give exactly what [`Problem::evaluate_child`] gives (the breeding only saves work).
    fn evaluate_bred(
        &self,
        c: &[Self::Gene],
        parents: [(&[Self::Gene], &Self::Memo); 2],
        _cross: Cross,
        _mutation: Option<&Self::Mutation>,
        memo: &mut Self::Memo,
        scratch: &mut Self::Scratch,
    ) -> Point {
        self.evaluate_child(c, parents, memo, scratch)
    }
}

/// The gene range a crossover swapped: a child copies its first parent's genes outside
/// `lo..=hi` and its second parent's inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cross {
    /// First swapped gene.
    pub lo: usize,
    /// Last swapped gene.
    pub hi: usize,
}

/// How one child is bred: its two parents (indices), the swapped range and its mutation.
#[derive(Clone, Copy)]
struct Breed<M> {
    parents: (usize, usize),
    cross: Cross,
    mutation: Option<M>,
}

/// The algorithm's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// Population size N (the dissertation: 100).
    pub population: usize,
    /// Probability that a child is mutated (p_m; not given in the text: 0.5).
    pub mutation: f64,
    /// How survivors are ranked.
    pub ranking: Ranking,
}

/// A running NSGA-II: the population, its objectives and its random stream.
pub struct Nsga2<'p, P: Problem> {
    problem: &'p P,
    params: Params,
    rng: Stream,
    /// The population's chromosomes.
    pop: Vec<Vec<P::Gene>>,
    /// Their objectives, by index.
    obj: Vec<Point>,
    /// Their memos, by index.
    memo: Vec<P::Memo>,
    /// Children's buffers, kept between generations.
    spare: Vec<Vec<P::Gene>>,
    /// Children's memo buffers, likewise.
    spare_memo: Vec<P::Memo>,
    /// Working memory, one per worker thread (and one for a caller outside the pool), kept
    /// between generations so that what it holds for reuse outlives a generation; each on
    /// its own cache lines, so that one thread's writes to its scratch (the lock, the
    /// buffers' lengths) do not evict the other's.
    scratch: Vec<Padded<Mutex<P::Scratch>>>,
    generation: u64,
}

impl<'p, P: Problem> Nsga2<'p, P> {
    /// A population of `params.population`: the `seeds` first (at most N), then random
    /// chromosomes drawn from `rng`. Every chromosome must have `problem.genes()` genes.
    pub fn new(problem: &'p P, params: Params, seeds: Vec<Vec<P::Gene>>, mut rng: Stream) -> Self {
        assert!(params.population >= 2, "a population needs two parents");
        let mut pop = seeds;
        pop.truncate(params.population);
        while pop.len() < params.population {
            pop.push(problem.random(&mut rng));
        }
        assert!(pop.iter().all(|c| c.len() == problem.genes()));
        let mut memo: Vec<P::Memo> = pop.iter().map(|_| P::Memo::default()).collect();
        let obj = pop
            .par_iter()
            .zip(memo.par_iter_mut())
            .map_init(
                || problem.scratch(),
                |s, (c, m)| problem.evaluate_memo(c, m, s),
            )
            .collect();
        Nsga2 {
            problem,
            params,
            rng,
            pop,
            obj,
            memo,
            spare: Vec::new(),
            spare_memo: Vec::new(),
            scratch: Vec::new(),
            generation: 0,
        }
    }

    /// Generations run so far.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The population's chromosomes.
    pub fn population(&self) -> &[Vec<P::Gene>] {
        &self.pop
    }

    /// The population's objectives, by index.
    pub fn objectives(&self) -> &[Point] {
        &self.obj
    }

    /// The indices of the population's non-dominated (rank 1) chromosomes, ascending.
    pub fn front(&self) -> Vec<usize> {
        non_dominated(&self.obj)
    }

    /// Runs one generation.
    pub fn step(&mut self) {
        let n = self.params.population;
        let len = self.problem.genes();
        let mut children = std::mem::take(&mut self.spare);
        children.truncate(n);
        while children.len() < n {
            children.push(Vec::with_capacity(len));
        }
        let mut child_memo = std::mem::take(&mut self.spare_memo);
        child_memo.truncate(n);
        child_memo.resize_with(n, P::Memo::default);
        // Every draw first, in the run's stream and its fixed order (each pair's parents and
        // range, then each child's mutation); the children are then made and evaluated in
        // parallel, each from its own plan, so the thread count changes nothing.
        let mut plan: Vec<Breed<P::Mutation>> = Vec::with_capacity(n);
        for _ in 0..n.div_ceil(2) {
            let a = self.rng.int(0, n as u64 - 1) as usize;
            let b = self.rng.int(0, n as u64 - 1) as usize;
            let i = self.rng.int(0, len as u64 - 1) as usize;
            let j = self.rng.int(0, len as u64 - 1) as usize;
            let cross = Cross {
                lo: i.min(j),
                hi: i.max(j),
            };
            // The second child of a pair copies the second parent outside the range first.
            for parents in [(a, b), (b, a)] {
                if plan.len() < n {
                    plan.push(Breed {
                        parents,
                        cross,
                        mutation: None,
                    });
                }
            }
        }
        for breed in plan.iter_mut() {
            if self.rng.unit() < self.params.mutation {
                breed.mutation = Some(self.problem.draw_mutation(&mut self.rng));
            }
        }
        let threads = rayon::current_num_threads();
        while self.scratch.len() <= threads {
            self.scratch
                .push(Padded(Mutex::new(self.problem.scratch())));
        }
        let (problem, memo, pop) = (self.problem, &self.memo, &self.pop);
        let scratch = &self.scratch;
        let child_obj: Vec<Point> = children
            .par_iter_mut()
            .zip(child_memo.par_iter_mut())
            .zip(plan.par_iter())
            // Pieces of a few children: a thread that runs out of work can then take one
            // from the other until the very end of the generation, rather than waiting on
            // a quarter of the children (rayon's own split) run on one thread.
            .with_max_len(CHILDREN_PER_PIECE)
            .map(|((c, m), breed)| {
                // Each thread its own; outside a pool, the last. Held only by this thread
                // unless an evaluation itself waits on rayon work (then a fresh one).
                let i = rayon::current_thread_index().map_or(threads, |i| i.min(threads));
                let mut fresh = None;
                let mut guard = match scratch[i].0.try_lock() {
                    Ok(g) => Some(g),
                    Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
                    Err(TryLockError::WouldBlock) => None,
                };
                let s = match guard.as_deref_mut() {
                    Some(s) => s,
                    None => fresh.insert(problem.scratch()),
                };
                {
                    let (a, b) = breed.parents;
                    let Cross { lo, hi } = breed.cross;
                    c.clear();
                    c.extend_from_slice(&pop[a]);
                    c[lo..=hi].copy_from_slice(&pop[b][lo..=hi]);
                    if let Some(mu) = &breed.mutation {
                        problem.apply_mutation(c, mu);
                    }
                    let parents = [(&pop[a][..], &memo[a]), (&pop[b][..], &memo[b])];
                    problem.evaluate_bred(c, parents, breed.cross, breed.mutation.as_ref(), m, s)
                }
            })
            .collect();
        let mut all_obj = std::mem::take(&mut self.obj);
        all_obj.extend_from_slice(&child_obj);
        let keep = select(&all_obj, n, self.params.ranking);
        let mut all: Vec<Option<Vec<P::Gene>>> =
            self.pop.drain(..).chain(children).map(Some).collect();
        let mut all_memo: Vec<Option<P::Memo>> =
            self.memo.drain(..).chain(child_memo).map(Some).collect();
        self.obj = keep.iter().map(|&k| all_obj[k]).collect();
        self.pop = keep
            .iter()
            .map(|&k| all[k].take().expect("each survivor once"))
            .collect();
        self.memo = keep
            .iter()
            .map(|&k| all_memo[k].take().expect("each survivor once"))
            .collect();
        self.spare = all.into_iter().flatten().collect();
        self.spare_memo = all_memo.into_iter().flatten().collect();
        self.generation += 1;
    }
}

/// At most this many children to a piece of parallel work (see [`Nsga2::step`]).
const CHILDREN_PER_PIECE: usize = 2;

/// A value aligned to 128 bytes (two cache lines, as adjacent-line prefetching pairs them),
/// so that values side by side in a vector never share a line.
#[repr(align(128))]
struct Padded<T>(T);

/// The objectives of every chromosome, in parallel, collected by index.
pub fn evaluate_all<P: Problem>(problem: &P, pop: &[Vec<P::Gene>]) -> Vec<Point> {
    pop.par_iter()
        .map_init(|| problem.scratch(), |s, c| problem.evaluate(c, s))
        .collect()
}
