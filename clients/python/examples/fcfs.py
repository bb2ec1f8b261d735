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
        now, out = state.now, []
        if now >= state.platform.day_end:
            return out
        free = {c: state.free_now(c) for c in range(len(state.platform.nodes))}
        energy = state.energy_left_mj()
        for task in state.queue():
            # Of the clusters with enough free nodes now and energy left, the one where it
            # ends first at P-state 0 (ties: the lower index), as kairos's FCFS.
            fits = [c for c in task.clusters()
                    if 0 < task.nodes(c) <= free[c]
                    and state.day_energy_mj(task, c, 0, now) <= energy]
            if not fits:
                break
            c = min(fits, key=lambda c: (task.duration(c), c))
            free[c] -= task.nodes(c)
            energy -= state.day_energy_mj(task, c, 0, now)
            out.append(Decision.start_now(task, now, c))
        return out


if __name__ == "__main__":
    serve(Fcfs())
