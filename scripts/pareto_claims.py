#!/usr/bin/env python3
"""Checks seed 002 Chapters 5-7's claims numerically from the files `kairos pareto` writes.

    python3 scripts/pareto_claims.py out/<experiment>...
    python3 scripts/pareto_claims.py --json out/<experiment> > analysis.json

With --json, one folder's numbers as JSON instead of the text tables (the claims of
claims/seed002-ch5-7.toml read them): per population and checkpoint the front's points,
hypervolume, coverage of the previous checkpoint and knee distance; per allocation A-E the
balance figures and each type's energy share; per score of a stochastic run the shares and
correlations of Fig. 7.4 and 7.7 and Fig. 7.5's placement of the front against its clouds.

For a utility-energy or makespan-energy run (fronts.csv): per population and checkpoint,
the front's size, its hypervolume (share of the box between the best and worst values of
every front of the run), and the coverage of each front over the same population's previous
checkpoint and over every other population's front at the same checkpoint (share of its
points strictly dominated); the most utility per joule; for makespan-energy runs the knee
(the point farthest from the line between the ends, in normalised units) and machines.csv's
balance (coefficient of variation of per-machine finish times and energies, idle machines,
and each machine type's share of the energy) at allocations A (min energy) and E (min
makespan). For a stochastic run (clouds.csv, coverage.csv): Fig. 7.4's shares, Fig. 7.6's
coverages and Fig. 7.7's correlation of drops with spread.
"""
import csv, math, os, sys
from collections import defaultdict


def dominates(a, b):
    return a[0] <= b[0] and a[1] <= b[1] and (a[0] < b[0] or a[1] < b[1])


def coverage(a, b):
    return sum(any(dominates(p, q) for p in a) for q in b) / len(b) if b else 0.0


def hypervolume(front, lo, hi):
    # Both objectives minimised, normalised to [0, 1] by the run's box; reference (1, 1).
    pts = sorted(((p[0] - lo[0]) / (hi[0] - lo[0] or 1), (p[1] - lo[1]) / (hi[1] - lo[1] or 1)) for p in front)
    hv, best_y = 0.0, 1.0
    for x, y in pts:
        if y < best_y:
            hv += (1 - x) * (best_y - y)
            best_y = y
    return hv


def cov(xs):
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / len(xs)) / m if m else 0.0


def fronts_report(d):
    rows = list(csv.DictReader(open(os.path.join(d, "fronts.csv"))))
    ue = "utility" in rows[0]
    fronts = defaultdict(list)
    order = []
    for r in rows:
        k = (r["population"], int(r["generation"]))
        if k not in fronts:
            order.append(k)
        x = -float(r["utility"]) if ue else float(r["makespan_s"])
        fronts[k].append((x, float(r["energy_j"])))
    allp = [p for f in fronts.values() for p in f]
    lo = (min(p[0] for p in allp), min(p[1] for p in allp))
    hi = (max(p[0] for p in allp), max(p[1] for p in allp))
    pops = list(dict.fromkeys(k[0] for k in order))
    gens = sorted(set(k[1] for k in order))
    print(f"== {d}")
    print("population | generation | points | hypervolume | covers previous checkpoint | " + ("max U/E (U, E J)" if ue else "knee (makespan s, energy J)"))
    for p in pops:
        prev = None
        for g in gens:
            f = fronts.get((p, g))
            if not f:
                continue
            c = f"{coverage(f, prev):.2f}" if prev else "-"
            if ue:
                u, e = max(((-x, y) for x, y in f), key=lambda q: q[0] / q[1])
                extra = f"{u / e:.3e} ({u:.1f}, {e:.0f})"
            else:
                a, b = f[0], f[-1]
                norm = lambda q: ((q[0] - lo[0]) / (hi[0] - lo[0] or 1), (q[1] - lo[1]) / (hi[1] - lo[1] or 1))
                na, nb = norm(a), norm(b)
                def dist(q):
                    nq = norm(q)
                    return abs((nb[1] - na[1]) * nq[0] - (nb[0] - na[0]) * nq[1] + nb[0] * na[1] - nb[1] * na[0]) / math.hypot(nb[0] - na[0], nb[1] - na[1])
                k = max(f, key=dist)
                extra = f"({k[0]:.1f}, {k[1]:.0f}), distance {dist(k):.3f}; ends ({a[0]:.1f}, {a[1]:.0f}) and ({b[0]:.1f}, {b[1]:.0f})"
            print(f"{p} | {g} | {len(f)} | {hypervolume(f, lo, hi):.4f} | {c} | {extra}")
            prev = f
    if len(pops) > 1:
        print("generation | a | b | coverage of a over b")
        for g in gens:
            for a in pops:
                for b in pops:
                    if a != b and (a, g) in fronts and (b, g) in fronts:
                        print(f"{g} | {a} | {b} | {coverage(fronts[(a, g)], fronts[(b, g)]):.2f}")
    m = os.path.join(d, "machines.csv")
    if os.path.exists(m):
        alloc = defaultdict(list)
        for r in csv.DictReader(open(m)):
            alloc[r["allocation"]].append(r)
        print("allocation | makespan s | energy J | CoV finish | CoV energy | idle machines | energy share by type")
        for a in "ABCDE":
            rs = alloc.get(a)
            if not rs:
                continue
            fin = [float(r["finish_s"]) for r in rs]
            en = [float(r["machine_energy_j"]) for r in rs]
            by = defaultdict(float)
            for r in rs:
                by[int(r["type"])] += float(r["machine_energy_j"])
            tot = sum(by.values())
            share = " ".join(f"{t}:{by[t] / tot:.2f}" for t in sorted(by))
            print(f"{a} | {float(rs[0]['makespan_s']):.1f} | {float(rs[0]['energy_j']):.0f} | {cov(fin):.3f} | {cov(en):.3f} | {sum(1 for x in fin if x == 0)} | {share}")


def stochastic_report(d):
    print(f"== {d}")
    rows = list(csv.DictReader(open(os.path.join(d, "clouds.csv"))))
    by = defaultdict(list)
    for r in rows:
        by[r["score"]].append(r)
    print("score | allocations | mean share of samples earning more than the mean-time run | spending less | median utility - mean-time utility | median energy - mean-time energy J | corr(drops, sd utility) | corr(drops, sd energy) | mean sd utility / mean utility | mean sd energy / mean energy")
    def corr(x, y):
        n = len(x)
        if n < 3:
            return float("nan")
        mx, my = sum(x) / n, sum(y) / n
        sx = math.sqrt(sum((a - mx) ** 2 for a in x))
        sy = math.sqrt(sum((b - my) ** 2 for b in y))
        return sum((a - mx) * (b - my) for a, b in zip(x, y)) / (sx * sy) if sx and sy else float("nan")
    for s, rs in by.items():
        f = lambda k: [float(r[k]) for r in rs]
        above, below = f("share_utility_above_expected"), f("share_energy_below_expected")
        du = [m - e for m, e in zip(f("median_utility"), f("expected_utility"))]
        de = [m - e for m, e in zip(f("median_energy_j"), f("expected_energy_j"))]
        rel_u = sum(a / b for a, b in zip(f("sd_utility"), f("mean_utility")) if b) / len(rs)
        rel_e = sum(a / b for a, b in zip(f("sd_energy_j"), f("mean_energy_j")) if b) / len(rs)
        print(f"{s} | {len(rs)} | {sum(above) / len(rs):.3f} | {sum(below) / len(rs):.3f} | {sum(du) / len(rs):.3f} | {sum(de) / len(rs):.0f} | {corr(f('dropped'), f('sd_utility')):.3f} | {corr(f('dropped'), f('sd_energy_j')):.3f} | {rel_u:.4f} | {rel_e:.4f}")
    # Fig. 7.5: where each front sits against its clouds (median of the fresh samples).
    fr = list(csv.DictReader(open(os.path.join(d, "fronts.csv"))))
    last = max(int(r["generation"]) for r in fr)
    print("score | front points | share of points with their score's utility above the fresh median | energy below the fresh median")
    for s, rs in by.items():
        pts = [r for r in fr if r["score"] == s and int(r["generation"]) == last]
        up = sum(float(p["utility"]) > float(c["median_utility"]) for p, c in zip(pts, rs)) / max(len(pts), 1)
        lo = sum(float(p["energy_j"]) < float(c["median_energy_j"]) for p, c in zip(pts, rs)) / max(len(pts), 1)
        print(f"{s} | {len(pts)} | {up:.2f} | {lo:.2f}")
    print("coverage.csv (fresh-sample medians; low/high = the other front's half of lower/higher utility per energy):")
    print(open(os.path.join(d, "coverage.csv")).read())


def knee_distance(f, lo, hi):
    a, b = f[0], f[-1]
    norm = lambda q: ((q[0] - lo[0]) / (hi[0] - lo[0] or 1), (q[1] - lo[1]) / (hi[1] - lo[1] or 1))
    na, nb = norm(a), norm(b)
    den = math.hypot(nb[0] - na[0], nb[1] - na[1])
    if not den:
        return 0.0
    def dist(q):
        nq = norm(q)
        return abs((nb[1] - na[1]) * nq[0] - (nb[0] - na[0]) * nq[1] + nb[0] * na[1] - nb[1] * na[0]) / den
    return max(dist(q) for q in f)


def analysis(d):
    """The numbers of the text report, as one JSON object."""
    out = {}
    if os.path.exists(os.path.join(d, "clouds.csv")):
        rows = list(csv.DictReader(open(os.path.join(d, "clouds.csv"))))
        fr = list(csv.DictReader(open(os.path.join(d, "fronts.csv"))))
        last = max(int(r["generation"]) for r in fr)
        by = defaultdict(list)
        for r in rows:
            by[r["score"]].append(r)
        def corr(x, y):
            n = len(x)
            mx, my = sum(x) / n, sum(y) / n
            sx = math.sqrt(sum((a - mx) ** 2 for a in x))
            sy = math.sqrt(sum((b - my) ** 2 for b in y))
            return sum((a - mx) * (b - my) for a, b in zip(x, y)) / (sx * sy) if n >= 3 and sx and sy else None
        sc = {}
        for s, rs in by.items():
            f = lambda k: [float(r[k]) for r in rs]
            pts = [r for r in fr if r["score"] == s and int(r["generation"]) == last]
            n = max(len(pts), 1)
            sc[s] = {
                "allocations": len(rs),
                "share_utility_above_expected": sum(f("share_utility_above_expected")) / len(rs),
                "share_energy_below_expected": sum(f("share_energy_below_expected")) / len(rs),
                "corr_dropped_sd_utility": corr(f("dropped"), f("sd_utility")),
                "corr_dropped_sd_energy": corr(f("dropped"), f("sd_energy_j")),
                "front_utility_above_fresh_median": sum(float(p["utility"]) > float(c["median_utility"]) for p, c in zip(pts, rs)) / n,
                "front_energy_below_fresh_median": sum(float(p["energy_j"]) < float(c["median_energy_j"]) for p, c in zip(pts, rs)) / n,
            }

            if "share_both" in rs[0]:
                # Fig. 7.4: both at once; and the same samples unqueued (each machine's queue
                # advanced by mean times: the test of the explanation).
                sc[s]["share_both"] = sum(f("share_both")) / len(rs)
                sc[s]["unqueued_share_utility_above_expected"] = sum(f("unqueued_share_utility_above_expected")) / len(rs)
                sc[s]["unqueued_share_energy_below_expected"] = sum(f("unqueued_share_energy_below_expected")) / len(rs)
                sc[s]["unqueued_share_both"] = sum(f("unqueued_share_both")) / len(rs)
                # Fig. 7.7's ellipses in the figure's units (energy / least mean energy,
                # utility / most mean utility): area (pi x the sd product x sqrt(1 - r^2)),
                # and whether they are upright (more spread in utility than in energy).
                me, mu = min(f("mean_energy_j")), max(f("mean_utility"))
                sx = [v / me for v in f("sd_energy_j")]
                sy = [v / mu for v in f("sd_utility")]
                area = [math.pi * a * b * math.sqrt(max(0.0, 1 - r * r)) for a, b, r in zip(sx, sy, f("corr_utility_energy"))]
                sc[s]["corr_dropped_ellipse_area"] = corr(f("dropped"), area)
                sc[s]["share_upright_ellipses"] = sum(b > a for a, b in zip(sx, sy)) / len(rs)
                sc[s]["mean_corr_utility_energy"] = sum(f("corr_utility_energy")) / len(rs)
        out["last_generation"] = last
        out["scores"] = sc
        return out
    rows = list(csv.DictReader(open(os.path.join(d, "fronts.csv"))))
    ue = "utility" in rows[0]
    fronts = defaultdict(list)
    for r in rows:
        x = -float(r["utility"]) if ue else float(r["makespan_s"])
        fronts[(r["population"], int(r["generation"]))].append((x, float(r["energy_j"])))
    allp = [p for f in fronts.values() for p in f]
    lo = (min(p[0] for p in allp), min(p[1] for p in allp))
    hi = (max(p[0] for p in allp), max(p[1] for p in allp))
    pops = {}
    for (p, g) in sorted(fronts, key=lambda k: k[1]):
        f = fronts[(p, g)]
        prev = [k for k in fronts if k[0] == p and k[1] < g]
        e = {"points": len(f), "hypervolume": hypervolume(f, lo, hi)}
        if prev:
            e["covers_previous"] = coverage(f, fronts[max(prev, key=lambda k: k[1])])
        if not ue:
            e["knee_distance"] = knee_distance(f, lo, hi)
        pops.setdefault(p, {})[str(g)] = e
    out["populations"] = pops
    if ue:
        # Fig. 5.5 B/C: utility per joule along each population's front at each checkpoint;
        # the peak (the point of most utility per joule), its place from the low-energy end
        # and whether it is inside the front (a peak, not an end).
        peaks = {}
        for (p, g), f in fronts.items():
            pts = sorted(((-x, y) for x, y in f), key=lambda q: q[1])
            pts = [q for q in pts if q[1] > 0]
            if not pts:
                continue
            i = max(range(len(pts)), key=lambda k: pts[k][0] / pts[k][1])
            peaks.setdefault(p, {})[str(g)] = {
                "points": len(pts), "index": i, "interior": int(0 < i < len(pts) - 1),
                "utility": pts[i][0], "energy_j": pts[i][1], "upe": pts[i][0] / pts[i][1],
                "upe_low_energy_end": pts[0][0] / pts[0][1], "upe_high_energy_end": pts[-1][0] / pts[-1][1]}
        out["upe_peak"] = peaks
    m = os.path.join(d, "machines.csv")
    if os.path.exists(m):
        alloc = defaultdict(list)
        for r in csv.DictReader(open(m)):
            alloc[r["allocation"]].append(r)
        al = {}
        for a, rs in alloc.items():
            fin = [float(r["finish_s"]) for r in rs]
            en = [float(r["machine_energy_j"]) for r in rs]
            by = defaultdict(float)
            for r in rs:
                by[int(r["type"])] += float(r["machine_energy_j"])
            tot = sum(by.values()) or 1
            al[a] = {"makespan_s": float(rs[0]["makespan_s"]), "energy_j": float(rs[0]["energy_j"]),
                     "cov_finish": cov(fin), "cov_energy": cov(en),
                     "idle_machines": sum(1 for x in fin if x == 0),
                     "energy_share": {str(t): by[t] / tot for t in sorted(by)}}
        out["allocations"] = al
    le = os.path.join(d, "least-energy.csv")
    if os.path.exists(le):
        # Each machine type's share of the tasks it runs at least energy (the tables alone).
        out["least_energy_share"] = {r["type"]: float(r["share_least_energy"]) for r in csv.DictReader(open(le))}
    return out


if sys.argv[1:2] == ["--json"]:
    import json
    if len(sys.argv) != 3:
        sys.exit("usage: pareto_claims.py --json DIR")
    print(json.dumps(analysis(sys.argv[2]), indent=1, sort_keys=True))
    sys.exit(0)

for d in sys.argv[1:]:
    if os.path.exists(os.path.join(d, "clouds.csv")):
        stochastic_report(d)
    else:
        fronts_report(d)
