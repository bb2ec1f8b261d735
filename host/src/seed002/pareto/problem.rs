//! Seed 002's bi-objective resource allocation (dissertation Chapters 5 and 6) as an
//! NSGA-II [`Problem`]: a chromosome is, per task in arrival order, a machine and a global
//! order key (§5.4.4); the objectives are utility and energy of a trace of arriving tasks
//! (Eq. 12-14), or makespan and energy of a bag of tasks (Eq. 16-18).
//!
//! Evaluation (spec §6): each machine runs its tasks by key, ties by task index (crossover
//! can duplicate keys); a task starts at max(machine free, arrival). Times are integer
//! microseconds, energy an integer count of millijoules and utility the core's fixed-point
//! [`Utility`], so totals do not depend on summation order. Keys are always below the task
//! count (random chromosomes are permutations and the operators only move keys), so tasks
//! are ordered by a bucket per key rather than a comparison sort.
//!
//! Speed: a machine's share of both objectives depends only on the tasks it runs and their
//! order (its task list), so each evaluation keeps per machine its utility, energy and busy
//! sum (the [`Memo`]), and a child starts from the parent whose genes it shares most. For a
//! bag only the differing genes' machines move time and energy (a sum, order-free); for a
//! trace the memo also keeps each machine's list in run order, with completions and running
//! utility, and `pareto_trace` resumes each changed machine from the parent's list (a task
//! that starts when it did in the parent is copied, not scheduled; a machine no differing
//! gene touches shares the parent's list). A task's utility depends only on the task and its
//! completion time, so a scheduled task that completes when it did in either parent reuses
//! that utility; the rest go through the prepared curves of `pareto_curve`. All of it is
//! exact: the same integers as evaluating from nothing, summed in any order.

use crate::generate::rng::Stream;
use crate::nsga2::{Cross, Point, Problem};
use crate::seed002::pareto::curve::Curves;
use crate::seed002::pareto::data::Tables;
use kairos_core::units::{Micros, Utility};
use kairos_core::utility::{UtilityClasses, UtilityCurve};
use std::sync::Arc;

/// One gene: where task i runs and its place in its machine's order. Eight bytes with no
/// padding (the pad is always zero), so that genes compare as words (`Gene::words`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C, align(8))]
pub struct Gene {
    /// The order key: lower runs first on the machine (ties by task index).
    pub key: u32,
    /// The machine (index into [`Instance::machine_type`]).
    pub machine: u16,
    /// Always zero.
    pad: u16,
}

impl Gene {
    /// Task on `machine` with order key `key`.
    pub const fn new(machine: u16, key: u32) -> Gene {
        Gene {
            key,
            machine,
            pad: 0,
        }
    }

    /// `genes` as words: two genes are equal exactly when their words are.
    pub(crate) fn words(genes: &[Gene]) -> &[u64] {
        // SAFETY: `Gene` is `repr(C)`, eight bytes aligned to eight, and its fields (u32,
        // u16, u16) fill it with no padding, so every byte is an initialised integer byte
        // and a slice of genes is a slice of as many `u64`s.
        const _: () =
            assert!(std::mem::size_of::<Gene>() == 8 && std::mem::align_of::<Gene>() == 8);
        unsafe { std::slice::from_raw_parts(genes.as_ptr().cast::<u64>(), genes.len()) }
    }
}

/// Which pair of objectives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Objective {
    /// Chapter 5: maximise utility (Eq. 12), minimise energy (Eq. 14).
    UtilityEnergy,
    /// Chapter 6: minimise makespan (Eq. 17), minimise energy (Eq. 18).
    MakespanEnergy,
}

/// One task of the trace (or bag).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Task {
    /// Its task type (a row of the tables).
    pub ty: u16,
    /// Arrival (zero for a bag).
    pub arrival: Micros,
    /// Its utility function (unused by [`Objective::MakespanEnergy`]).
    pub curve: UtilityCurve,
}

/// A problem instance: machines, tables, tasks.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Each machine's type (a column of the tables).
    pub machine_type: Vec<u8>,
    /// The tables (s, W).
    pub tables: Tables,
    /// The tasks, by arrival.
    pub tasks: Vec<Task>,
    /// The classes the curves index.
    pub classes: UtilityClasses,
    /// The objectives.
    pub objective: Objective,
    /// ETC per (task type, machine type), microseconds ([`Micros::MAX`]: cannot run).
    etc: Vec<Micros>,
    /// EEC = ETC x EPC per (task type, machine type), millijoules.
    eec: Vec<u64>,
    /// The machines each task type can run on, ascending.
    eligible: Vec<Vec<u16>>,
    /// The tasks' curves, prepared (utility-energy only).
    curves: Curves,
    /// Per task, what the trace walk reads of it in one place ([`Walk`]).
    walk: Vec<Walk>,
    /// ETC and EEC per (task type, machine): the walk's one table read per task.
    cost: Vec<(Micros, u64)>,
    /// [`trace::Recent::keys`] for this instance's task count.
    recent_keys: (u32, u64),
    /// The recent utilities, one table shared by every evaluation of this instance (each
    /// scratch holds a handle): so each thread finds what the others computed.
    recent: trace::Recent,
}

/// What the trace walk reads of a task, together: it visits tasks in key order, i.e.
/// scattered, so each task is one record here rather than a read of `tasks` (the curve's
/// bytes beside it) and two of the type-by-machine-type tables through `machine_type`.
#[derive(Clone, Copy, Debug)]
struct Walk {
    arrival: Micros,
    /// The task's row of `cost`: its type times the machine count.
    row: usize,
}

/// Why an instance cannot be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InstanceError {
    /// A machine's type is not a column of the tables.
    #[error("machine {0}: its type is not a column of the ETC table")]
    MachineType(usize),
    /// A task's type is not a row, or no machine can run it.
    #[error("task {0}: unknown type, or no machine can run it")]
    Task(usize),
    /// Tasks are not sorted by arrival.
    #[error("task {0} arrives before the task before it")]
    Unsorted(usize),
    /// No machines or no tasks, or more than the genes can name.
    #[error("between 1 and 65535 machines and 1 and 2^31 tasks")]
    Size,
}

impl Instance {
    /// Checks and indexes an instance.
    pub fn new(
        machine_type: Vec<u8>,
        tables: Tables,
        tasks: Vec<Task>,
        classes: UtilityClasses,
        objective: Objective,
    ) -> Result<Instance, InstanceError> {
        if machine_type.is_empty()
            || machine_type.len() > u16::MAX as usize
            || tasks.is_empty()
            || tasks.len() > (1 << 31)
        {
            return Err(InstanceError::Size);
        }
        let mt = tables.machine_types;
        if let Some(m) = machine_type.iter().position(|&t| t as usize >= mt) {
            return Err(InstanceError::MachineType(m));
        }
        let etc: Vec<Micros> = tables
            .etc_s
            .iter()
            .map(|&s| {
                if s.is_finite() {
                    Micros::from_secs_f64(s).max(Micros(1))
                } else {
                    Micros::MAX
                }
            })
            .collect();
        let eec: Vec<u64> = etc
            .iter()
            .zip(&tables.epc_w)
            .map(|(&e, &w)| {
                if e == Micros::MAX {
                    u64::MAX
                } else {
                    // us x W = uJ; to mJ, rounded.
                    libm::round(e.0 as f64 * w / 1000.0) as u64
                }
            })
            .collect();
        let eligible: Vec<Vec<u16>> = (0..tables.task_types)
            .map(|i| {
                (0..machine_type.len() as u16)
                    .filter(|&m| etc[i * mt + machine_type[m as usize] as usize] != Micros::MAX)
                    .collect()
            })
            .collect();
        let mut last = Micros::ZERO;
        for (i, t) in tasks.iter().enumerate() {
            if t.ty as usize >= tables.task_types || eligible[t.ty as usize].is_empty() {
                return Err(InstanceError::Task(i));
            }
            if objective == Objective::UtilityEnergy
                && t.curve.value_at(Micros::ZERO, &classes).is_err()
            {
                return Err(InstanceError::Task(i));
            }
            if t.arrival < last {
                return Err(InstanceError::Unsorted(i));
            }
            last = t.arrival;
        }
        let curves = if objective == Objective::UtilityEnergy {
            Curves::new(tasks.iter().map(|t| &t.curve), &classes)
        } else {
            Curves::new(std::iter::empty(), &UtilityClasses::new())
        };
        let machines = machine_type.len();
        let walk = tasks
            .iter()
            .map(|t| Walk {
                arrival: t.arrival,
                row: t.ty as usize * machines,
            })
            .collect();
        let cost = (0..tables.task_types)
            .flat_map(|ty| {
                let (etc, eec) = (&etc, &eec);
                machine_type.iter().map(move |&m| {
                    let k = ty * mt + m as usize;
                    (etc[k], eec[k])
                })
            })
            .collect();
        let recent_keys = trace::Recent::keys(tasks.len());
        Ok(Instance {
            recent_keys,
            recent: trace::Recent::new(),
            walk,
            cost,
            curves,
            machine_type,
            tables,
            tasks,
            classes,
            objective,
            etc,
            eec,
            eligible,
        })
    }

    /// Machines.
    pub fn machines(&self) -> usize {
        self.machine_type.len()
    }

    /// ETC of task `t` on machine `m`.
    #[inline]
    pub fn etc(&self, t: usize, m: u16) -> Micros {
        self.etc[self.tasks[t].ty as usize * self.tables.machine_types
            + self.machine_type[m as usize] as usize]
    }

    /// EEC of task `t` on machine `m`, millijoules.
    #[inline]
    pub fn eec(&self, t: usize, m: u16) -> u64 {
        self.eec[self.tasks[t].ty as usize * self.tables.machine_types
            + self.machine_type[m as usize] as usize]
    }

    /// ETC (µs; [`Micros::MAX`]: cannot run) and EEC (mJ) of task type `i` on machine type
    /// `j`: the integers every evaluation uses (the exported instance's tables).
    pub fn type_cost(&self, i: usize, j: usize) -> (Micros, u64) {
        let k = i * self.tables.machine_types + j;
        (self.etc[k], self.eec[k])
    }

    /// The machines task `t` can run on.
    pub fn eligible(&self, t: usize) -> &[u16] {
        &self.eligible[self.tasks[t].ty as usize]
    }

    /// The utility task `t` earns completing at `completion`.
    #[inline]
    pub fn utility(&self, t: usize, completion: Micros) -> f64 {
        let task = &self.tasks[t];
        task.curve
            .value_at(completion.saturating_sub(task.arrival), &self.classes)
            .unwrap_or(0.0)
    }

    /// The full measures of chromosome `c`.
    pub fn measure(&self, c: &[Gene]) -> Measures {
        let mut s = self.scratch();
        let p = self.evaluate(c, &mut s);
        let mut finish = vec![Micros::ZERO; self.machines()];
        let mut energy = vec![0u64; self.machines()];
        for (t, g) in c.iter().enumerate() {
            finish[g.machine as usize] += self.etc(t, g.machine);
            energy[g.machine as usize] += self.eec(t, g.machine);
        }
        let busy_end = if self.objective == Objective::UtilityEnergy {
            s.free.clone()
        } else {
            finish.clone()
        };
        Measures {
            utility: if self.objective == Objective::UtilityEnergy {
                -p[0]
            } else {
                0.0
            },
            makespan_s: finish.iter().max().map_or(0.0, |f| f.as_secs_f64()),
            energy_j: energy.iter().sum::<u64>() as f64 / 1000.0,
            machine_busy_s: finish.iter().map(|f| f.as_secs_f64()).collect(),
            machine_end_s: busy_end.iter().map(|f| f.as_secs_f64()).collect(),
            machine_energy_j: energy.iter().map(|&e| e as f64 / 1000.0).collect(),
        }
    }
}

/// What an allocation does: both objectives' raw values and per-machine use.
#[derive(Clone, Debug, PartialEq)]
pub struct Measures {
    /// Total utility (Eq. 12; zero for a bag).
    pub utility: f64,
    /// The largest per-machine sum of ETC (Eq. 17), seconds.
    pub makespan_s: f64,
    /// Total energy (Eq. 14 / 18), joules.
    pub energy_j: f64,
    /// Per machine: the sum of its tasks' ETC (Eq. 16), seconds.
    pub machine_busy_s: Vec<f64>,
    /// Per machine: when its last task ends, seconds (the busy sum for a bag).
    pub machine_end_s: Vec<f64>,
    /// Per machine: the energy its tasks use, joules.
    pub machine_energy_j: Vec<f64>,
}

/// What evaluating a chromosome leaves for its children: per machine its utility, energy
/// (mJ) and busy time (the sum of its ETC), and for a trace (utility-energy; empty for a
/// bag) its tasks in run order with their completions and the running utility, shared
/// between chromosomes whose lists on the machine are the same.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Memo {
    machine: Vec<MachineSums>,
    lists: Vec<Arc<Vec<trace::Slot>>>,
}

/// One machine's share of the objectives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct MachineSums {
    utility: Utility,
    energy: u64,
    busy: Micros,
}

/// Working memory of one evaluation.
#[derive(Clone, Debug)]
pub struct Scratch {
    /// The memo of an evaluation nobody keeps.
    own: Memo,
    /// First task of each key's bucket (u32::MAX: empty).
    head: Vec<u32>,
    /// Next task in the same bucket.
    next: Vec<u32>,
    /// Each machine's free time (or busy sum).
    free: Vec<Micros>,
    /// How a child differs from each parent (a trace's).
    sides: [trace::Side; 2],
    /// Machine lists no memo holds any more, for reuse.
    pool: Vec<Arc<Vec<trace::Slot>>>,
    /// Utilities lately computed (a trace's).
    recent: trace::Recent,
}

const NONE: u32 = u32::MAX;

impl Problem for Instance {
    type Gene = Gene;
    type Scratch = Scratch;
    type Memo = Memo;
    type Mutation = Mutation;

    fn genes(&self) -> usize {
        self.tasks.len()
    }

    fn scratch(&self) -> Scratch {
        Scratch {
            own: Memo::default(),
            head: vec![NONE; self.tasks.len()],
            next: vec![NONE; self.tasks.len()],
            free: vec![Micros::ZERO; self.machines()],
            sides: [0, 1].map(|_| trace::Side::new(self.tasks.len(), self.machines())),
            pool: Vec::new(),
            recent: self.recent.clone(),
        }
    }

    /// Uniform eligible machines and a random permutation of the keys (spec §6).
    fn random(&self, rng: &mut Stream) -> Vec<Gene> {
        let n = self.tasks.len();
        let mut keys: Vec<u32> = (0..n as u32).collect();
        for i in (1..n).rev() {
            keys.swap(i, rng.int(0, i as u64) as usize);
        }
        (0..n)
            .map(|t| {
                let e = self.eligible(t);
                Gene::new(e[rng.int(0, e.len() as u64 - 1) as usize], keys[t])
            })
            .collect()
    }

    /// §5.4.4: one random gene gets a random eligible machine, and two random genes swap
    /// their keys.
    fn draw_mutation(&self, rng: &mut Stream) -> Mutation {
        let n = self.tasks.len() as u64;
        let t = rng.int(0, n - 1) as usize;
        let e = self.eligible(t);
        let machine = e[rng.int(0, e.len() as u64 - 1) as usize];
        let a = rng.int(0, n - 1) as usize;
        let b = rng.int(0, n - 1) as usize;
        Mutation {
            task: t,
            machine,
            swap: [a, b],
        }
    }

    fn apply_mutation(&self, c: &mut [Gene], m: &Mutation) {
        c[m.task].machine = m.machine;
        let [a, b] = m.swap;
        let k = c[a].key;
        c[a].key = c[b].key;
        c[b].key = k;
    }

    fn evaluate(&self, c: &[Gene], s: &mut Scratch) -> Point {
        let mut own = std::mem::take(&mut s.own);
        let p = self.evaluate_memo(c, &mut own, s);
        s.own = own;
        p
    }

    fn evaluate_memo(&self, c: &[Gene], memo: &mut Memo, s: &mut Scratch) -> Point {
        match self.objective {
            Objective::MakespanEnergy => {
                memo.lists.clear();
                memo.machine.clear();
                memo.machine.resize(self.machines(), MachineSums::default());
                for (t, g) in c.iter().enumerate() {
                    let m = &mut memo.machine[g.machine as usize];
                    m.busy += self.etc(t, g.machine);
                    m.energy += self.eec(t, g.machine);
                }
                bag_point(&memo.machine)
            }
            Objective::UtilityEnergy => self.trace_all(c, memo, s),
        }
    }

    fn evaluate_child(
        &self,
        c: &[Gene],
        parents: [(&[Gene], &Memo); 2],
        memo: &mut Memo,
        s: &mut Scratch,
    ) -> Point {
        let n = c.len();
        let machines = self.machines();
        if self.objective == Objective::MakespanEnergy {
            // A bag's sums are order-free: start from a parent with a whole memo (the first,
            // whose genes outside the swapped range the child copies) and move the genes
            // whose machine differs.
            let Some(&(pc, pm)) = parents
                .iter()
                .find(|(pc, pm)| pc.len() == n && pm.machine.len() == machines)
            else {
                return self.evaluate_memo(c, memo, s);
            };
            memo.lists.clear();
            memo.machine.clone_from(&pm.machine);
            for (t, (&g, &p)) in c.iter().zip(pc).enumerate() {
                self.move_gene(&mut memo.machine, t, p, g);
            }
            return bag_point(&memo.machine);
        }
        // A parent without a whole memo (never, in a run) is not used.
        let usable = |(pc, pm): &(&[Gene], &Memo)| {
            pc.len() == n && pm.machine.len() == machines && pm.lists.len() == machines
        };
        match parents.map(|p| usable(&p)) {
            [true, true] => self.trace_child(c, parents, memo, s),
            [true, false] => self.trace_child(c, [parents[0]; 2], memo, s),
            [false, true] => self.trace_child(c, [parents[1]; 2], memo, s),
            [false, false] => self.evaluate_memo(c, memo, s),
        }
    }

    /// [`Problem::evaluate_child`] where only the genes the breeding could have changed are
    /// compared: the child is `parents[0]` outside the swapped range and `parents[1]` inside
    /// but for the mutation's genes, so it differs from `parents[0]` only inside the range
    /// or at a mutated gene, and from `parents[1]` only outside it or at a mutated gene.
    fn evaluate_bred(
        &self,
        c: &[Gene],
        parents: [(&[Gene], &Memo); 2],
        cross: Cross,
        mutation: Option<&Mutation>,
        memo: &mut Memo,
        s: &mut Scratch,
    ) -> Point {
        let n = c.len();
        let machines = self.machines();
        let whole = |(pc, pm): &(&[Gene], &Memo)| {
            pc.len() == n
                && pm.machine.len() == machines
                && (self.objective == Objective::MakespanEnergy || pm.lists.len() == machines)
        };
        if !parents.iter().all(whole) || cross.lo > cross.hi || cross.hi >= n {
            return self.evaluate_child(c, parents, memo, s);
        }
        let inside = |t: usize| (cross.lo..=cross.hi).contains(&t);
        // The mutated genes, each once, split by the range.
        let mut mutated = [usize::MAX; 3];
        if let Some(m) = mutation {
            for (k, t) in [m.task, m.swap[0], m.swap[1]].into_iter().enumerate() {
                if !mutated[..k].contains(&t) {
                    mutated[k] = t;
                }
            }
        }
        let mut out = [usize::MAX; 3];
        let mut inn = [usize::MAX; 3];
        for (k, &t) in mutated.iter().enumerate().filter(|(_, &t)| t < n) {
            if inside(t) {
                inn[k] = t;
            } else {
                out[k] = t;
            }
        }
        let (pc, pm) = parents[0];
        if self.objective == Objective::MakespanEnergy {
            memo.lists.clear();
            memo.machine.clone_from(&pm.machine);
            let genes = (cross.lo..=cross.hi).chain(out.into_iter().filter(|&t| t < n));
            for t in genes {
                self.move_gene(&mut memo.machine, t, pc[t], c[t]);
            }
            return bag_point(&memo.machine);
        }
        let keep = |a: [usize; 3]| a.into_iter().filter(move |&t| t < n);
        s.sides[0].differ_over(c, pc, [cross.lo..cross.hi + 1, 0..0], keep(out));
        s.sides[1].differ_over(c, parents[1].0, [0..cross.lo, cross.hi + 1..n], keep(inn));
        self.trace_sides(c, parents, memo, s)
    }
}

/// One mutation's draws: task `task` gets `machine`, the genes `swap` swap their keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mutation {
    task: usize,
    machine: u16,
    swap: [usize; 2],
}

impl Instance {
    /// Moves task `t`'s busy time and energy in `sums` from gene `from`'s machine to gene
    /// `to`'s (order-free sums, so the same integers as summing from nothing).
    #[inline]
    fn move_gene(&self, sums: &mut [MachineSums], t: usize, from: Gene, to: Gene) {
        if from.machine != to.machine {
            let (old, new) = (from.machine as usize, to.machine as usize);
            sums[old].busy = sums[old].busy - self.etc(t, from.machine);
            sums[old].energy -= self.eec(t, from.machine);
            sums[new].busy += self.etc(t, to.machine);
            sums[new].energy += self.eec(t, to.machine);
        }
    }
}

/// A bag's objectives from its machines' sums: the largest busy time, the total energy.
fn bag_point(machines: &[MachineSums]) -> Point {
    let makespan = machines
        .iter()
        .map(|m| m.busy)
        .max()
        .unwrap_or(Micros::ZERO);
    let energy: u64 = machines.iter().map(|m| m.energy).sum();
    [makespan.as_secs_f64(), energy as f64 / 1000.0]
}

#[path = "trace.rs"]
mod trace;

#[cfg(test)]
#[path = "problem_tests.rs"]
mod tests;
