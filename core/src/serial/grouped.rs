//! The two-stage batch pass over groups of tasks that share a task type and a utility curve
//! (differing only in arrival): the same decisions as the per-task pass of `two_stage`, at a
//! cost that does not grow with the batch at every assignment.
//!
//! Why it is exact. The four two-stage heuristics take, over every (task, machine type)
//! pair, the pair of highest score, then the earlier task, then the earlier completion, then
//! the lower machine (stage 1 breaks machine ties by completion and machine, stage 2 task
//! ties by arrival; Min-Min's and Max-Max Util's stage 1, the first completion, is also the
//! pair of highest score for the task, since a utility never rises). Within a group a task's
//! utility at a completion time depends only on its age, and never rises with age, so at a
//! given completion the youngest task earns the most and the tasks earning as much as it are
//! the youngest few: the group's best task on a machine type is the earliest of those, found
//! by a binary search over arrivals. A group's key (its best pair) only falls as machines'
//! ready times grow and its tasks leave, so a key computed earlier is an upper bound: the
//! groups sit in a max-heap by their last computed key, the top is recomputed, and it is the
//! best pair once its fresh key still beats both children's older ones.
//!
//! Storage: the tasks' group ids are computed once per run ([`assign_groups`]); a pass sorts
//! its slots by (group, task), marks mapped positions in `next` (a find-next-alive forest),
//! keeps each group's last live position in `prev`, its start in `tree[n..]`, its tasks'
//! evaluation count in `choice`, the heap in `tree[..groups]`, its key in `key` and its
//! key's task in `group_task`.

use super::env::SerialTask;
use super::queue::NONE;
use super::two_stage::Scratch;
use super::view::View;
use crate::units::Micros;
use crate::utility::UtilityCurve;

/// Which two-stage heuristic a grouped pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Stage 1 the first completion, stage 2 the earliest completion.
    MinMin,
    /// Stage 1 the first completion, stage 2 the highest utility.
    MaxUtil,
    /// Both stages utility / execution time, over every machine type.
    MaxUpt,
    /// Stage 1 the first completion in the fastest (MET) type, stage 2 utility / execution
    /// time.
    MetMaxUpt,
}

/// A curve's parameters as an ordered key (arrival is not part of a curve).
fn curve_key(c: &UtilityCurve) -> (u8, u64, u64, u64, u64) {
    match *c {
        UtilityCurve::PiecewiseExp {
            priority,
            urgency_per_min,
            first,
            class,
        } => (
            0,
            priority.to_bits(),
            urgency_per_min.to_bits(),
            first.0,
            class as u64,
        ),
        UtilityCurve::Linear {
            start,
            soft,
            hard,
            final_value,
        } => (1, start.to_bits(), soft.0, hard.0, final_value.to_bits()),
    }
}

/// Numbers the groups of `tasks` into `group[..n]`: tasks of one type and one curve, or of
/// one type if `!by_curve` (Min-Min Comp looks at no utility); in order of (type, curve).
/// `perm[..n]` is scratch.
pub(crate) fn assign_groups(
    tasks: &[SerialTask],
    by_curve: bool,
    group: &mut [u32],
    perm: &mut [u32],
) {
    let n = tasks.len();
    for (i, p) in perm[..n].iter_mut().enumerate() {
        *p = i as u32;
    }
    let key = |t: u32| {
        let task = &tasks[t as usize];
        let c = if by_curve {
            curve_key(&task.curve)
        } else {
            (0, 0, 0, 0, 0)
        };
        (task.ty, c)
    };
    perm[..n].sort_unstable_by_key(|&t| (key(t), t));
    let mut g = 0u32;
    for i in 0..n {
        if i > 0 && key(perm[i]) != key(perm[i - 1]) {
            g += 1;
        }
        group[perm[i] as usize] = g;
    }
}

/// The first live position at or after `p` (`n` if none), compressing the path.
fn find_next(next: &mut [u32], p: usize, n: usize) -> usize {
    let mut r = p;
    while r < n && next[r] as usize != r {
        r = next[r] as usize;
    }
    let mut q = p;
    while q < n && next[q] as usize != q {
        let up = next[q] as usize;
        next[q] = r as u32;
        q = up;
    }
    r
}

/// A group's best pair: score, task, completion, machine.
#[derive(Clone, Copy)]
struct Best {
    score: f64,
    task: u32,
    completion: Micros,
    machine: u16,
}

impl Best {
    /// Higher score, then earlier task, then earlier completion, then lower machine.
    fn beats(&self, o: &Best) -> bool {
        if self.score != o.score {
            return self.score > o.score;
        }
        (self.task, self.completion, self.machine) < (o.task, o.completion, o.machine)
    }
}

/// One grouped pass over `sc.slots[..n]` (any order; left sorted by group), calling
/// `emit(task, machine)` in assignment order; returns the evaluations a textbook pass makes
/// (`evals(task)` per remaining task at every assignment, as `two_stage::run` counts).
pub(crate) fn run(
    v: &mut View<'_>,
    sc: &mut Scratch<'_>,
    n: usize,
    kind: Kind,
    evals: &dyn Fn(&View<'_>, u32) -> u64,
    emit: &mut dyn FnMut(u32, u16),
) -> u64 {
    if n == 0 {
        return 0;
    }
    let gid = sc.group;
    sc.slots[..n].sort_unstable_by_key(|&t| ((gid[t as usize] as u64) << 32) | t as u64);
    // Groups: their starts in tree[n..], last live positions in prev.
    let mut groups = 0usize;
    let mut pairs = 0u64;
    for p in 0..n {
        let t = sc.slots[p];
        sc.next[p] = p as u32;
        if p == 0 || gid[t as usize] != gid[sc.slots[p - 1] as usize] {
            sc.tree[n + groups] = p as u32;
            // A group's tasks share a type, so they count the same evaluations (at most
            // one per machine, which fits a u16).
            sc.choice[groups] = evals(v, t) as u16;
            groups += 1;
        }
        pairs += sc.choice[groups - 1] as u64;
        sc.prev[groups - 1] = p as u32;
    }
    let mut heap = 0usize;
    for g in 0..groups {
        if let Some(b) = best(v, sc, g, groups, n, kind) {
            sc.key[g] = b.score;
            sc.group_task[g] = b.task;
            sc.tree[heap] = g as u32;
            heap += 1;
        }
    }
    for i in (0..heap / 2).rev() {
        sift_down(sc, heap, i);
    }
    let mut total = 0u64;
    while heap > 0 {
        let g = sc.tree[0] as usize;
        let Some(b) = best(v, sc, g, groups, n, kind) else {
            heap -= 1;
            sc.tree[0] = sc.tree[heap];
            sift_down(sc, heap, 0);
            continue;
        };
        sc.key[g] = b.score;
        sc.group_task[g] = b.task;
        let child_better = (1..heap.min(3)).any(|k| better(sc, sc.tree[k] as usize, g));
        if child_better {
            sift_down(sc, heap, 0);
            continue;
        }
        // The top's fresh pair beats every other group's upper bound: it is the best pair.
        total += pairs;
        v.take(b.task, b.machine);
        emit(b.task, b.machine);
        pairs -= sc.choice[g] as u64;
        remove(sc, g, groups, n, b.task);
        // Its key stays as an upper bound; it is recomputed when it next reaches the top.
    }
    total
}

/// The range of positions of group `g`.
fn range(sc: &Scratch<'_>, g: usize, groups: usize, n: usize) -> (usize, usize) {
    let a = sc.tree[n + g] as usize;
    let e = if g + 1 < groups {
        sc.tree[n + g + 1] as usize
    } else {
        n
    };
    (a, e)
}

/// Marks task `t` of group `g` mapped.
fn remove(sc: &mut Scratch<'_>, g: usize, groups: usize, n: usize, t: u32) {
    let (a, e) = range(sc, g, groups, n);
    // The task's position: the group is sorted by task.
    let p = a + sc.slots[a..e].partition_point(|&x| x < t);
    sc.next[p] = (p + 1) as u32;
    // The last live position moves back past the mapped ones.
    let mut last = sc.prev[g] as usize;
    if last == p {
        loop {
            if last == a {
                last = NONE as usize;
                break;
            }
            last -= 1;
            if sc.next[last] as usize == last {
                break;
            }
        }
        sc.prev[g] = last as u32;
    }
}

/// Group `g`'s best pair now, or `None` if all its tasks are mapped.
fn best(
    v: &View<'_>,
    sc: &mut Scratch<'_>,
    g: usize,
    groups: usize,
    n: usize,
    kind: Kind,
) -> Option<Best> {
    let last = sc.prev[g];
    if last == NONE {
        return None;
    }
    let last = last as usize;
    let (a, _) = range(sc, g, groups, n);
    let first = find_next(sc.next, a, n);
    let young = sc.slots[last];
    let ty = v.tasks[young as usize].ty;
    // The group's best task completing at `c` and its utility: the earliest task earning
    // what the youngest earns (utilities never fall from older to younger).
    let at = |sc: &mut Scratch<'_>, c: Micros| -> (u32, f64) {
        let u = v.utility(young, c);
        if first == last {
            return (young, u);
        }
        // Positions (mapped or not) before `lo` earn less than u.
        let (mut lo, mut hi) = (first, last);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if v.utility(sc.slots[mid], c) >= u {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        (sc.slots[find_next(sc.next, lo, n)], u)
    };
    match kind {
        Kind::MinMin => {
            let (m, c) = v.type_min_completion_where(ty, |_| true)?;
            Some(Best {
                score: -(c.0 as f64),
                task: sc.slots[first],
                completion: c,
                machine: m,
            })
        }
        Kind::MaxUtil => {
            let (m, c) = v.type_min_completion_where(ty, |_| true)?;
            let (task, u) = at(sc, c);
            Some(Best {
                score: u,
                task,
                completion: c,
                machine: m,
            })
        }
        Kind::MetMaxUpt => {
            let j = v.env.met_type(ty);
            let (m, c) = v.type_min_completion_in(ty, j)?;
            let (task, u) = at(sc, c);
            Some(Best {
                score: u / v.env.etc(ty, j).0 as f64,
                task,
                completion: c,
                machine: m,
            })
        }
        Kind::MaxUpt => {
            // A utility never rises with completion, so the young task's utility at the
            // earliest completion over every type bounds its utility on each type, and
            // that over a type's execution time bounds the type's score: a type whose bound
            // is below the best score so far cannot win (an equal bound can, on ties) and is
            // not evaluated. The fastest type goes first, to set a high score early.
            let (_, c_min) = v.type_min_completion_where(ty, |_| true)?;
            let u_max = v.utility(young, c_min);
            let met = v.env.met_type(ty);
            let mut out: Option<Best> = None;
            for j in core::iter::once(met).chain((0..v.env.machine_types).filter(|&j| j != met)) {
                let Some((m, c)) = v.type_min_completion_in(ty, j) else {
                    continue;
                };
                let etc = v.env.etc(ty, j).0 as f64;
                if out.as_ref().is_some_and(|o| u_max / etc < o.score) {
                    continue;
                }
                let (task, u) = at(sc, c);
                let b = Best {
                    score: u / etc,
                    task,
                    completion: c,
                    machine: m,
                };
                if out.as_ref().is_none_or(|o| b.beats(o)) {
                    out = Some(b);
                }
            }
            out
        }
    }
}

/// Whether group `a`'s key beats group `b`'s: higher score, then earlier task.
#[inline]
fn better(sc: &Scratch<'_>, a: usize, b: usize) -> bool {
    let (ka, kb) = (sc.key[a], sc.key[b]);
    ka > kb || (ka == kb && sc.group_task[a] < sc.group_task[b])
}

fn sift_down(sc: &mut Scratch<'_>, heap: usize, mut i: usize) {
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut top = i;
        if l < heap && better(sc, sc.tree[l] as usize, sc.tree[top] as usize) {
            top = l;
        }
        if r < heap && better(sc, sc.tree[r] as usize, sc.tree[top] as usize) {
            top = r;
        }
        if top == i {
            return;
        }
        sc.tree.swap(i, top);
        i = top;
    }
}
