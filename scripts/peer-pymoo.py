#!/usr/bin/env python3
"""NSGA-II in pymoo (PyPI `pymoo`), the peer docs/performance.md ("Peers") times beside
`kairos pareto`: 100 chromosomes of 1,000 genes (as data set 2's 1,000 tasks) for 2,000
generations, on ZDT1, whose evaluation is a few vectorised numpy operations, so the time is
almost all pymoo's own: breeding, non-dominated sorting, crowding.
    python3 -m venv /tmp/pymoo && /tmp/pymoo/bin/pip install pymoo==0.6.2
    /usr/bin/time -f '%U %S %M' /tmp/pymoo/bin/python scripts/peer-pymoo.py [GENERATIONS]
Prints the generations run and the CPU seconds of the run.
"""
import sys
import time

from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.optimize import minimize
from pymoo.problems import get_problem

generations = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
problem = get_problem("zdt1", n_var=1000)
t0 = time.process_time()
result = minimize(problem, NSGA2(pop_size=100), ("n_gen", generations), seed=1, verbose=False)
cpu = time.process_time() - t0
print(f"{result.algorithm.n_gen - 1} generations, {cpu:.2f} s of CPU, "
      f"{cpu / generations * 1e3:.2f} ms a generation, {len(result.F)} points on the front")
