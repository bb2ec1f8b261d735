#!/usr/bin/env python3
"""Replays an SWF log in AccaSim (PyPI `accasim`, a Python HPC workload simulator), the peer
that docs/performance.md ("Peers") times beside `kairos replay`. The machine is the log's
MaxProcs one-core nodes (KTH-SP2: 100); the policy FIFO or EASY backfilling, first fit.
    python3 -m venv /tmp/accasim && /tmp/accasim/bin/pip install accasim==1.1.3
    /usr/bin/time -f '%U %S %M' /tmp/accasim/bin/python scripts/peer-accasim.py LOG.swf easy|fifo
Prints AccaSim's job count, mean wait and slowdown, and the simulation's CPU seconds.
"""
import collections
import collections.abc
import json
import os
import sys
import tempfile
import time

# AccaSim 1.1.3 imports these names from `collections`, which Python 3.10 moved away.
for _name in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Callable"):
    setattr(collections, _name, getattr(collections.abc, _name))

from accasim.base.allocator_class import FirstFit  # noqa: E402
from accasim.base.scheduler_class import EASYBackfilling, FirstInFirstOut  # noqa: E402
from accasim.base.simulator_class import Simulator  # noqa: E402


def max_procs(path):
    with open(path, errors="replace") as f:
        for line in f:
            if not line.startswith(";"):
                break
            key, _, value = line[1:].partition(":")
            if key.strip() == "MaxProcs":
                return int(value.split()[0])
    sys.exit(f"{path}: no MaxProcs in the header")


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("easy", "fifo"):
        sys.exit("usage: peer-accasim.py LOG.swf easy|fifo")
    log, policy = sys.argv[1], sys.argv[2]
    out = tempfile.mkdtemp(prefix="accasim-")
    config = os.path.join(out, "system.json")
    with open(config, "w") as f:
        json.dump({"groups": {"g0": {"core": 1}}, "resources": {"g0": max_procs(log)},
                   "equivalence": {"processor": {"core": 1}}, "start_time": 0}, f)
    allocator = FirstFit()
    dispatcher = EASYBackfilling(allocator) if policy == "easy" else FirstInFirstOut(allocator)
    sim = Simulator(log, config, dispatcher, scheduling_output=False, RESULTS_FOLDER_PATH=out)
    t0 = time.process_time()
    sim.start_simulation()
    print(f"simulation CPU {time.process_time() - t0:.2f} s; statistics in {out}")


main()
