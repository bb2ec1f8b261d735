#!/usr/bin/env python3
"""Loads a Batsim jobs file with evalys (JobSet.from_csv) and draws its Gantt chart.

Usage: evalys_gantt.py JOBS.csv OUT.png

Prints one line, `jobs=N ran=R resources=A-B utilisation_max=U`, for host/tests/evalys.rs to
check against the file kairos wrote. Exits non-zero (with evalys's own error) when evalys
cannot read the file.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from evalys.jobset import JobSet  # noqa: E402
from evalys.visu.gantt import plot_gantt  # noqa: E402


def main():
    jobs_csv, out_png = sys.argv[1], sys.argv[2]
    js = JobSet.from_csv(jobs_csv)
    df = js.df
    ran = df[df["allocated_resources"].apply(len) > 0]
    # evalys's Gantt chart draws the jobs that ran (rejected ones have no resources).
    shown = JobSet(ran.copy())
    plot_gantt(shown, title="kairos")
    plt.gcf().savefig(out_png)
    util = shown.utilisation
    print(
        "jobs={} ran={} resources={}-{} utilisation_max={}".format(
            len(df), len(ran), shown.res_bounds.inf, shown.res_bounds.sup,
            int(util.max().iloc[0] if hasattr(util.max(), "iloc") else util.max()),
        )
    )


if __name__ == "__main__":
    main()
