use super::super::tests::{reference, spaced};
use super::super::Mutation;
use super::*;
use crate::generate::rng::Stream;
use crate::nsga2::Problem;
use crate::seed002::pareto::Objective;
use proptest::prelude::*;

/// 0: all at once, a queue that never empties; a few seconds: machines idle between tasks,
/// so a change is soon absorbed.
fn instance(n: usize, gap_ms: u64) -> Instance {
    spaced(Objective::UtilityEnergy, n, gap_ms)
}

fn memo_of(inst: &Instance, c: &[Gene], s: &mut Scratch) -> (Point, Memo) {
    let mut m = Memo::default();
    let p = inst.evaluate_memo(c, &mut m, s);
    (p, m)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever the parents (near or far, either order, the child equal to one of them)
    /// and however busy the machines, a child resumed from its parents' lists gets the
    /// objectives and the memo (every machine's list, completions and running utility) of
    /// its evaluation from nothing, and the chapter's plain evaluation's objectives.
    #[test]
    fn a_resumed_child_equals_its_evaluation_from_nothing(
        seed in 0u64..1_000_000,
        gap_ms in prop::sample::select(vec![0u64, 500, 2_000, 4_000, 15_000]),
        apart in 0usize..40,
        lo in 0usize..60,
        len in 0usize..60,
        mutations in 0usize..4,
    ) {
        let inst = instance(60, gap_ms);
        let mut r = Stream::new(seed, 0, "test-resume", 0);
        let mut s = inst.scratch();
        let a = inst.random(&mut r);
        let mut b = a.clone();
        for _ in 0..apart {
            inst.mutate(&mut b, &mut r);
        }
        let mut child = a.clone();
        let hi = (lo + len).min(59);
        child[lo..=hi].copy_from_slice(&b[lo..=hi]);
        for _ in 0..mutations {
            inst.mutate(&mut child, &mut r);
        }
        let (pa, ma) = memo_of(&inst, &a, &mut s);
        let (pb, mb) = memo_of(&inst, &b, &mut s);
        let (want, want_memo) = memo_of(&inst, &child, &mut s);
        prop_assert_eq!(want, reference(&inst, &child));
        let mut got = Memo::default();
        for parents in [
            [(&a[..], &ma), (&b[..], &mb)],
            [(&b[..], &mb), (&a[..], &ma)],
            [(&a[..], &ma), (&a[..], &ma)],
        ] {
            prop_assert_eq!(inst.evaluate_child(&child, parents, &mut got, &mut s), want);
            prop_assert_eq!(&got, &want_memo);
        }
        // A parent evaluated as its own child.
        prop_assert_eq!(
            inst.evaluate_child(&a, [(&a[..], &ma), (&b[..], &mb)], &mut got, &mut s),
            pa
        );
        prop_assert_eq!(
            inst.evaluate_child(&b, [(&a[..], &ma), (&b[..], &mb)], &mut got, &mut s),
            pb
        );
    }
}

/// The lists are shared, not copied: a child equal to a parent holds that parent's lists,
/// and one whose only change is a key on one machine holds all the others.
#[test]
fn a_child_shares_the_lists_of_machines_it_leaves_unchanged() {
    let inst = instance(40, 2_000);
    let mut r = Stream::new(3, 0, "test-share", 0);
    let mut s = inst.scratch();
    let a = inst.random(&mut r);
    let b = inst.random(&mut r);
    let (_, ma) = memo_of(&inst, &a, &mut s);
    let (_, mb) = memo_of(&inst, &b, &mut s);
    let mut got = Memo::default();
    inst.evaluate_child(&a, [(&b[..], &mb), (&a[..], &ma)], &mut got, &mut s);
    for m in 0..inst.machines() {
        assert!(Arc::ptr_eq(&got.lists[m], &ma.lists[m]), "machine {m}");
    }
    // Two tasks on machine 1 swap keys: only machine 1's list is rebuilt.
    let on1: Vec<usize> = (0..a.len()).filter(|&t| a[t].machine == 1).collect();
    assert!(on1.len() >= 2);
    let mut child = a.clone();
    child[on1[0]].key = a[on1[1]].key;
    child[on1[1]].key = a[on1[0]].key;
    let p = inst.evaluate_child(&child, [(&a[..], &ma), (&b[..], &mb)], &mut got, &mut s);
    assert_eq!(p, reference(&inst, &child));
    for m in 0..inst.machines() {
        assert_eq!(
            Arc::ptr_eq(&got.lists[m], &ma.lists[m]),
            m != 1,
            "machine {m}"
        );
    }
    let order: Vec<u32> = got.lists[1].iter().map(|s| s.task).collect();
    let mut want: Vec<u32> = on1.iter().map(|&t| t as u32).collect();
    want.sort_by_key(|&t| (child[t as usize].key, t));
    assert_eq!(order, want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A child told how it was bred (which parent outside the swapped range, which inside,
    /// which genes the mutation drew, coinciding or not, inside the range or out) gets the
    /// objectives and memo of its evaluation from nothing, for both objectives and for
    /// both children of the crossover.
    #[test]
    fn a_bred_child_equals_its_evaluation_from_nothing(
        seed in 0u64..1_000_000,
        gap_ms in prop::sample::select(vec![0u64, 2_000, 15_000]),
        apart in 0usize..40,
        lo in 0usize..60,
        len in 0usize..60,
        genes in [0usize..60, 0usize..60, 0usize..60],
        same in 0usize..4,
        mutated in any::<bool>(),
        bag in any::<bool>(),
    ) {
        let objective = if bag { Objective::MakespanEnergy } else { Objective::UtilityEnergy };
        let inst = spaced(objective, 60, gap_ms);
        let mut r = Stream::new(seed, 0, "test-bred", 0);
        let mut s = inst.scratch();
        let a = inst.random(&mut r);
        let mut b = a.clone();
        for _ in 0..apart {
            inst.mutate(&mut b, &mut r);
        }
        let (_, ma) = memo_of(&inst, &a, &mut s);
        let (_, mb) = memo_of(&inst, &b, &mut s);
        let cross = crate::nsga2::Cross { lo, hi: (lo + len).min(59) };
        // The mutation's three genes, two of them the same gene when `same` says so.
        let mut g = genes;
        match same {
            1 => g[1] = g[0],
            2 => g[2] = g[0],
            3 => g[2] = g[1],
            _ => {}
        }
        let e = inst.eligible(g[0]);
        let mutation = Mutation { task: g[0], machine: e[r.int(0, e.len() as u64 - 1) as usize], swap: [g[1], g[2]] };
        let mutation = mutated.then_some(mutation);
        for (p, q, mp, mq) in [(&a, &b, &ma, &mb), (&b, &a, &mb, &ma)] {
            let mut child = p.clone();
            child[cross.lo..=cross.hi].copy_from_slice(&q[cross.lo..=cross.hi]);
            if let Some(m) = &mutation {
                inst.apply_mutation(&mut child, m);
            }
            let (want, want_memo) = memo_of(&inst, &child, &mut s);
            let mut got = Memo::default();
            let parents = [(&p[..], mp), (&q[..], mq)];
            prop_assert_eq!(
                inst.evaluate_bred(&child, parents, cross, mutation.as_ref(), &mut got, &mut s),
                want
            );
            prop_assert_eq!(&got, &want_memo);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A side's buckets hold, for every machine, exactly the places in the child of the
    /// differing genes that run on it there and the places in the parent of those that ran on
    /// it there (so a gene that changes machine is in two machines' buckets and one that
    /// changes only its key twice in one), whether the genes are compared as whole ranges or
    /// as two ranges and extra genes; and clearing empties every bucket for the next child.
    #[test]
    fn a_side_buckets_each_differing_gene_by_its_machines(
        seed in 0u64..1_000_000,
        apart in 0usize..200,
        lo in 0usize..60,
        len in 0usize..60,
    ) {
        let inst = instance(60, 0);
        let mut r = Stream::new(seed, 0, "test-side", 0);
        let p = inst.random(&mut r);
        let mut c = p.clone();
        for _ in 0..apart {
            inst.mutate(&mut c, &mut r);
        }
        let place = |g: Gene, t: usize| (g.key as u64) << 32 | t as u64;
        let hi = (lo + len).min(59);
        let mut side = Side::new(60, inst.machines());
        // The whole, then the range's outside and the differing genes inside it as extras.
        let inside: Vec<usize> = (lo..=hi).filter(|&t| c[t] != p[t]).collect();
        let splits = [
            ([0..60, 0..0], Vec::new()),
            ([0..lo, hi + 1..60], inside),
        ];
        for (ranges, extra) in splits {
            side.differ_over(&c, &p, ranges, extra.into_iter());
            let differ: Vec<usize> = (0..60).filter(|&t| c[t] != p[t]).collect();
            let mut diff = side.diff.clone();
            diff.sort_unstable();
            prop_assert_eq!(diff, differ.iter().map(|&t| t as u32).collect::<Vec<_>>());
            for m in 0..inst.machines() {
                let mut ins: Vec<u64> = differ
                    .iter()
                    .filter(|&&t| c[t].machine as usize == m)
                    .map(|&t| place(c[t], t))
                    .collect();
                let mut outs: Vec<u64> = differ
                    .iter()
                    .filter(|&&t| p[t].machine as usize == m)
                    .map(|&t| place(p[t], t))
                    .collect();
                ins.sort_unstable();
                outs.sort_unstable();
                prop_assert_eq!(side.touches(m), ins.len() + outs.len());
                let (got_ins, got_outs) = side.places(m);
                prop_assert_eq!(got_ins, &ins[..]);
                prop_assert_eq!(got_outs, &outs[..]);
            }
            side.clear();
            for m in 0..inst.machines() {
                prop_assert_eq!(side.touches(m), 0);
            }
        }
    }
}

/// The recent utilities give what the curve gives, whether a pair is new, repeated, or
/// evicted by another pair of its bucket (many more pairs than buckets, completions near
/// each other and far apart, every task).
#[test]
fn recent_utilities_are_the_curves() {
    let inst = instance(60, 2_000);
    let mut recent = Recent::new();
    let mut r = Stream::new(4, 0, "test-recent", 0);
    for _ in 0..50_000 {
        let t = r.int(0, 59) as usize;
        let arrival = inst.walk[t].arrival;
        let scale = [1, 1_000, 1_000_000][r.int(0, 2) as usize];
        let end = arrival + Micros(r.int(0, 3_000) * scale);
        let want = inst.curves.utility(t, end - arrival);
        assert_eq!(recent.utility(&inst, t, end, arrival), want);
        assert_eq!(recent.utility(&inst, t, end, arrival), want);
    }
}

/// A utility too large for a bucket's 32 bits is not kept, and still earns what the curve
/// gives, first time and again.
#[test]
fn recent_utilities_too_large_to_keep_are_the_curves() {
    use crate::seed002::pareto::Task;
    use kairos_core::utility::{Urgency, UtilityClasses, UtilityCurve};
    let tables =
        crate::seed002::pareto::data::cov_method(6, 3, (10.0, 0.3, 0.3), (200.0, 0.2, 0.3), 5);
    let tasks = (0..20)
        .map(|i| Task {
            ty: (i % 6) as u16,
            arrival: Micros(i as u64 * 1_000_000),
            // Up to 50,000 units: 5e10 micro-units, above `u32::MAX`.
            curve: UtilityCurve::essc(
                50_000.0,
                Urgency::High,
                Micros::from_secs(10),
                (i % 4) as u8,
            ),
        })
        .collect();
    let inst = Instance::new(
        vec![0, 1, 2],
        tables,
        tasks,
        UtilityClasses::essc20(),
        Objective::UtilityEnergy,
    )
    .unwrap();
    let mut recent = Recent::new();
    let mut large = 0;
    for t in 0..20 {
        let arrival = inst.walk[t].arrival;
        for late_ms in [0, 10, 1_000, 30_000, 600_000] {
            let end = arrival + Micros(late_ms * 1_000);
            let want = inst.curves.utility(t, end - arrival);
            large += usize::from(want.0 > u64::from(u32::MAX));
            assert_eq!(recent.utility(&inst, t, end, arrival), want);
            assert_eq!(recent.utility(&inst, t, end, arrival), want);
        }
    }
    assert!(
        large > 0,
        "no utility above 32 bits: the test tests nothing"
    );
}
