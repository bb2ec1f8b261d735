//! The population and one NSGA-II generation (§5.4.4, Algorithm 1).

use super::sort::{non_dominated, select, Ranking};
use super::Point;
use crate::generate::rng::Stream;
use rayon::prelude::*;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock, TryLockError};
use std::thread::Thread;

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
    /// A mutation's random draws: made in the run's one stream, in a fixed order, before the
    /// children are made (in parallel; possibly a generation ahead, on another thread); so a
    /// mutation's draws must not depend on the chromosome it will change.
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
    /// The run's stream (lent to the team during [`Nsga2::evolve`]).
    rng: Option<Stream>,
    /// The population's chromosomes.
    pop: Vec<Vec<P::Gene>>,
    /// Their objectives, by index.
    obj: Vec<Point>,
    /// Their memos, by index.
    memo: Vec<P::Memo>,
    /// The children, one slot each, kept between generations (their buffers are reused);
    /// each on its own cache lines, as the threads write them side by side.
    slots: Vec<Padded<Mutex<Child<P>>>>,
    /// Working memory, one per member of a generation's team, kept between generations so
    /// that what it holds for reuse outlives a generation; each on its own cache lines.
    scratch: Vec<Padded<Mutex<P::Scratch>>>,
    generation: u64,
}

/// One child: its genes, memo and objectives.
struct Child<P: Problem> {
    genes: Vec<P::Gene>,
    memo: P::Memo,
    obj: Point,
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
        // Each chromosome evaluated is told to the command's progress: a large instance's
        // first generation takes seconds (`kairos pareto`'s setup).
        let obj = pop
            .par_iter()
            .zip(memo.par_iter_mut())
            .map_init(
                || problem.scratch(),
                |s, (c, m)| {
                    let o = problem.evaluate_memo(c, m, s);
                    crate::progress::tick(1);
                    o
                },
            )
            .collect();
        let slots = (0..params.population)
            .map(|_| {
                Padded(Mutex::new(Child {
                    genes: Vec::with_capacity(problem.genes()),
                    memo: P::Memo::default(),
                    obj: [0.0; 2],
                }))
            })
            .collect();
        Nsga2 {
            problem,
            params,
            rng: Some(rng),
            pop,
            obj,
            memo,
            slots,
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

    /// The run's stream as it stands between generations ([`crate::generate::rng::Stream::position`]).
    pub fn stream_position(&self) -> [u8; 56] {
        self.rng
            .as_ref()
            .expect("the stream is back after each call")
            .position()
    }

    /// Puts the run where a saved one stood after `generation` generations: its
    /// population `pop` (in its order) and its stream; the objectives are evaluated afresh
    /// (a pure function of the chromosome), so the run goes on as the saved one would
    /// have. Every chromosome must have `problem.genes()` genes and there must be
    /// `params.population` of them.
    pub fn restore(&mut self, generation: u64, pop: Vec<Vec<P::Gene>>, rng: Stream) {
        assert_eq!(pop.len(), self.params.population);
        assert!(pop.iter().all(|c| c.len() == self.problem.genes()));
        let problem = self.problem;
        let mut memo: Vec<P::Memo> = pop.iter().map(|_| P::Memo::default()).collect();
        self.obj = pop
            .par_iter()
            .zip(memo.par_iter_mut())
            .map_init(
                || problem.scratch(),
                |s, (c, m)| problem.evaluate_memo(c, m, s),
            )
            .collect();
        self.pop = pop;
        self.memo = memo;
        self.rng = Some(rng);
        self.generation = generation;
    }

    /// Runs one generation.
    pub fn step(&mut self) {
        self.evolve(self.generation + 1, |_| {});
    }

    /// Runs generations until `until` have run, calling `tick` with the generation after
    /// each (on the calling thread, between generations).
    ///
    /// The generations run on a team that lasts the whole call: the calling thread (the
    /// master) and one helper per other thread of the rayon pool, if a thread is free to
    /// take it. Between generations a helper waits by spinning (parking only when the wait
    /// runs long) rather than going back to the pool, so that a generation seldom pays for
    /// waking a sleeping thread; a
    /// generation's work (its children, and drawing the next generation's plan) is claimed
    /// item by item from one counter by whoever is there, and the master alone ranks and
    /// selects. The master never waits for a helper to arrive, only for the items a helper
    /// has claimed to finish, so a run with no free thread (other populations on the other
    /// threads) is a one-thread run.
    pub fn evolve(&mut self, until: u64, tick: impl FnMut(u64) + Send) {
        if self.generation >= until {
            return;
        }
        let threads = rayon::current_num_threads().max(1);
        while self.scratch.len() < threads {
            self.scratch
                .push(Padded(Mutex::new(self.problem.scratch())));
        }
        let n = self.params.population;
        let team = Team {
            problem: self.problem,
            params: self.params,
            phase: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            failed: AtomicBool::new(false),
            next: AtomicUsize::new(usize::MAX),
            done: AtomicUsize::new(0),
            draws: Mutex::new(Draws {
                rng: self.rng.take().expect("the stream is back after each call"),
                plan: Vec::with_capacity(n),
                ready: false,
            }),
            parents: RwLock::new(Parents {
                pop: std::mem::take(&mut self.pop),
                memo: std::mem::take(&mut self.memo),
                plan: Vec::with_capacity(n),
                draw_ahead: false,
            }),
            slots: &self.slots,
            master: OnceLock::new(),
            helpers: Mutex::new(Vec::new()),
        };
        let scratch = &self.scratch;
        let (obj, generation) = (&mut self.obj, &mut self.generation);
        rayon::scope(|s| {
            for helper in &scratch[1..threads] {
                let team = &team;
                s.spawn(move |_| team.help(&helper.0));
            }
            team.master(obj, generation, until, &scratch[0].0, tick);
        });
        let draws = team
            .draws
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        debug_assert!(
            !draws.ready,
            "a plan is drawn ahead only for a generation to run"
        );
        self.rng = Some(draws.rng);
        let parents = team
            .parents
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        self.pop = parents.pop;
        self.memo = parents.memo;
    }
}

/// One call of [`Nsga2::evolve`]: what its members share.
struct Team<'a, P: Problem> {
    problem: &'a P,
    params: Params,
    /// The generation being run (its number plus one once its items are open).
    phase: AtomicU64,
    /// Set when the master is done (or has panicked): helpers leave.
    stop: AtomicBool,
    /// Set when a helper panicked: the master stops waiting for it.
    failed: AtomicBool,
    /// The next item to claim: 0 draws the next generation's plan, 1..=N are the children.
    next: AtomicUsize,
    /// Items finished this generation.
    done: AtomicUsize,
    /// The run's stream and the plan drawn ahead from it.
    draws: Mutex<Draws<P::Mutation>>,
    /// What a generation's items read: written by the master only between generations.
    parents: RwLock<Parents<P>>,
    slots: &'a [Padded<Mutex<Child<P>>>],
    /// The master's thread, woken when the last item finishes.
    master: OnceLock<Thread>,
    /// The helpers' threads, woken when a generation opens.
    helpers: Mutex<Vec<Thread>>,
}

/// The run's random stream, and the next generation's plan if drawn ahead.
struct Draws<M> {
    rng: Stream,
    plan: Vec<Breed<M>>,
    ready: bool,
}

/// The parents and this generation's plan.
struct Parents<P: Problem> {
    pop: Vec<Vec<P::Gene>>,
    memo: Vec<P::Memo>,
    plan: Vec<Breed<P::Mutation>>,
    /// Whether item 0 draws the next generation's plan (there is a next generation).
    draw_ahead: bool,
}

thread_local! {
    /// Whether this thread is a member of a team: it then joins no other (an evaluation
    /// that waited on rayon work could otherwise be handed a helper's job, and wait on it).
    static IN_TEAM: Cell<bool> = const { Cell::new(false) };
}

/// Sets `flag` when dropped: the master's stop (however it leaves), a helper's failure
/// (when it leaves by a panic).
struct SetOnDrop<'a> {
    flag: &'a AtomicBool,
    only_panicking: bool,
}

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        if !self.only_panicking || std::thread::panicking() {
            self.flag.store(true, Ordering::Release);
        }
    }
}

impl<P: Problem> Team<'_, P> {
    /// The master's loop: per generation, the plan, the items, then the selection.
    fn master(
        &self,
        obj: &mut Vec<Point>,
        generation: &mut u64,
        until: u64,
        scratch: &Mutex<P::Scratch>,
        mut tick: impl FnMut(u64),
    ) {
        let _stop = SetOnDrop {
            flag: &self.stop,
            only_panicking: false,
        };
        let was = IN_TEAM.with(|t| t.replace(true));
        let _ = self.master.set(std::thread::current());
        let mut s = scratch.lock().unwrap_or_else(PoisonError::into_inner);
        let n = self.params.population;
        let mut all_obj: Vec<Point> = Vec::with_capacity(2 * n);
        let mut next_pop: Vec<Vec<P::Gene>> = Vec::with_capacity(n);
        let mut next_memo: Vec<P::Memo> = Vec::with_capacity(n);
        let mut next_obj: Vec<Point> = Vec::with_capacity(n);
        let mut dead: Vec<usize> = Vec::with_capacity(n);
        while *generation < until {
            {
                let mut w = self.write();
                let w = &mut *w;
                let mut d = self.draws.lock().unwrap_or_else(PoisonError::into_inner);
                if d.ready {
                    std::mem::swap(&mut d.plan, &mut w.plan);
                    d.ready = false;
                } else {
                    draw_plan(self.problem, &self.params, &mut d.rng, &mut w.plan);
                }
                w.draw_ahead = *generation + 1 < until;
                self.next.store(0, Ordering::Relaxed);
                self.done.store(0, Ordering::Relaxed);
            }
            self.phase.store(*generation + 1, Ordering::Release);
            self.wake_helpers();
            {
                let r = self.parents.read().unwrap_or_else(PoisonError::into_inner);
                self.work(&r, &mut s);
            }
            wait_until(|| {
                assert!(
                    !self.failed.load(Ordering::Acquire),
                    "a helper of the generation panicked"
                );
                self.done.load(Ordering::Acquire) == n + 1
            });
            let mut w = self.write();
            let w = &mut *w;
            all_obj.clear();
            all_obj.extend_from_slice(obj);
            for slot in self.slots {
                all_obj.push(slot.0.lock().unwrap_or_else(PoisonError::into_inner).obj);
            }
            let keep = select(&all_obj, n, self.params.ranking);
            // The parents that do not survive give their buffers to the children that do.
            dead.clear();
            let mut kept = keep.iter().peekable();
            for i in 0..n {
                if kept.next_if_eq(&&i).is_none() {
                    dead.push(i);
                }
            }
            let mut dead = dead.iter();
            next_pop.clear();
            next_memo.clear();
            next_obj.clear();
            for &k in &keep {
                next_obj.push(all_obj[k]);
                if k < n {
                    next_pop.push(std::mem::take(&mut w.pop[k]));
                    next_memo.push(std::mem::take(&mut w.memo[k]));
                } else {
                    let mut c = self.slots[k - n]
                        .0
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner);
                    let &d = dead.next().expect("a parent dies for each child kept");
                    next_pop.push(std::mem::replace(
                        &mut c.genes,
                        std::mem::take(&mut w.pop[d]),
                    ));
                    next_memo.push(std::mem::replace(
                        &mut c.memo,
                        std::mem::take(&mut w.memo[d]),
                    ));
                }
            }
            std::mem::swap(&mut w.pop, &mut next_pop);
            std::mem::swap(&mut w.memo, &mut next_memo);
            std::mem::swap(obj, &mut next_obj);
            *generation += 1;
            tick(*generation);
        }
        self.stop.store(true, Ordering::Release);
        self.wake_helpers();
        IN_TEAM.with(|t| t.set(was));
    }

    /// Wakes the helpers parked on a long wait: a generation opened, or the team is done.
    fn wake_helpers(&self) {
        for h in self
            .helpers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
        {
            h.unpark();
        }
    }

    /// A helper's loop: joins each generation's items until the master is done.
    fn help(&self, scratch: &Mutex<P::Scratch>) {
        if IN_TEAM.with(|t| t.get()) {
            return;
        }
        let Ok(mut s) = scratch.try_lock() else {
            return;
        };
        IN_TEAM.with(|t| t.set(true));
        self.helpers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(std::thread::current());
        let _failed = SetOnDrop {
            flag: &self.failed,
            only_panicking: true,
        };
        let mut seen = 0;
        loop {
            wait_until(|| {
                self.stop.load(Ordering::Acquire) || self.phase.load(Ordering::Acquire) != seen
            });
            if self.stop.load(Ordering::Acquire) {
                break;
            }
            seen = self.phase.load(Ordering::Acquire);
            // Refused only while the master selects or prepares: that generation's items
            // are all claimed, or not yet open (the phase will move).
            if let Ok(r) = self.parents.try_read() {
                self.work(&r, &mut s);
            }
        }
        IN_TEAM.with(|t| t.set(false));
    }

    /// The parents for the master alone (a helper may still be leaving its read).
    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Parents<P>> {
        let mut guard = None;
        spin_until(|| match self.parents.try_write() {
            Ok(g) => {
                guard = Some(g);
                true
            }
            Err(TryLockError::Poisoned(e)) => {
                guard = Some(e.into_inner());
                true
            }
            Err(TryLockError::WouldBlock) => false,
        });
        guard.expect("taken")
    }

    /// Claims and runs items of the open generation until none is left.
    fn work(&self, r: &Parents<P>, s: &mut P::Scratch) {
        let n = self.params.population;
        loop {
            let item = self.next.fetch_add(1, Ordering::Relaxed);
            if item > n {
                return;
            }
            if item == 0 {
                if r.draw_ahead {
                    let mut d = self.draws.lock().unwrap_or_else(PoisonError::into_inner);
                    let d = &mut *d;
                    draw_plan(self.problem, &self.params, &mut d.rng, &mut d.plan);
                    d.ready = true;
                }
            } else {
                let breed = &r.plan[item - 1];
                let mut slot = self.slots[item - 1]
                    .0
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                let slot = &mut *slot;
                let (a, b) = breed.parents;
                let Cross { lo, hi } = breed.cross;
                let (pa, pb) = (&r.pop[a], &r.pop[b]);
                let c = &mut slot.genes;
                c.clear();
                c.extend_from_slice(&pa[..lo]);
                c.extend_from_slice(&pb[lo..=hi]);
                c.extend_from_slice(&pa[hi + 1..]);
                if let Some(mu) = &breed.mutation {
                    self.problem.apply_mutation(c, mu);
                }
                let parents = [(&pa[..], &r.memo[a]), (&pb[..], &r.memo[b])];
                slot.obj = self.problem.evaluate_bred(
                    c,
                    parents,
                    breed.cross,
                    breed.mutation.as_ref(),
                    &mut slot.memo,
                    s,
                );
            }
            if self.done.fetch_add(1, Ordering::Release) == n {
                if let Some(m) = self.master.get() {
                    m.unpark();
                }
            }
        }
    }
}

/// One generation's plan, drawn from `rng` in the run's fixed order: each pair's parents
/// and range, then each child's mutation (with probability `p_m`).
fn draw_plan<P: Problem>(
    problem: &P,
    params: &Params,
    rng: &mut Stream,
    plan: &mut Vec<Breed<P::Mutation>>,
) {
    let n = params.population;
    let len = problem.genes();
    plan.clear();
    for _ in 0..n.div_ceil(2) {
        let a = rng.int(0, n as u64 - 1) as usize;
        let b = rng.int(0, n as u64 - 1) as usize;
        let i = rng.int(0, len as u64 - 1) as usize;
        let j = rng.int(0, len as u64 - 1) as usize;
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
        if rng.unit() < params.mutation {
            breed.mutation = Some(problem.draw_mutation(rng));
        }
    }
}

/// Spins (then parks) until `ready`: a team's waits are short (a selection, a child's
/// evaluation), shorter than a sleeping thread takes to wake, so they spin first; a longer
/// one (the machine busy with other work, the thread waited on not running) parks the
/// thread, as spinning or yielding then only takes the CPU from the thread waited on. The
/// other side unparks it (the master when a generation opens, the last item's thread when
/// the generation's items are done); the timeout covers the rest (the end of a call).
fn wait_until(ready: impl FnMut() -> bool) {
    spin_then(ready, || std::thread::park_timeout(PARK_AT_MOST));
}

/// Spins (then yields) until `ready`: for the master's wait on a helper leaving its read of
/// the parents, which takes no longer than the helper's last failed claim.
fn spin_until(ready: impl FnMut() -> bool) {
    spin_then(ready, std::thread::yield_now);
}

/// Spins [`SPINS_BEFORE_PARKING`] times, then calls `long` between each look, until `ready`.
fn spin_then(mut ready: impl FnMut() -> bool, mut long: impl FnMut()) {
    let mut spins = 0u32;
    while !ready() {
        if spins < SPINS_BEFORE_PARKING {
            spins += 1;
            std::hint::spin_loop();
        } else {
            long();
        }
    }
}

/// Spins before a wait parks its thread (a few tens of microseconds).
const SPINS_BEFORE_PARKING: u32 = 1 << 12;

/// The longest a parked member sleeps before looking again.
const PARK_AT_MOST: std::time::Duration = std::time::Duration::from_micros(500);

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

#[cfg(test)]
#[path = "evolve_tests.rs"]
mod tests;
