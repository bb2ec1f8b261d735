"""Strict first-come first-served: in arrival order, start each task now if it fits, and
stop at the first that does not (no task overtakes an earlier one). The same schedule as
``kairos replay LOG --policy fcfs``.

    kairos replay LOG --controller "exec:python3 clients/python/examples/fcfs.py"
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from kairos_client import Decision, serve  # noqa: E402


class Fcfs:
    def decide(self, state):
        out = []
        free = {c: state.free_now(c) for c in range(len(state.platform.nodes))}
        for task in state.queue():
            # The first cluster (by index) it may run on with enough free nodes, P-state 0.
            c = next((c for c in task.clusters() if task.nodes(c) <= free[c]), None)
            if c is None:
                break
            free[c] -= task.nodes(c)
            out.append(Decision.start_now(task, state.now, c))
        return out


if __name__ == "__main__":
    serve(Fcfs())
