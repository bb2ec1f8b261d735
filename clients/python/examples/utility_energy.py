"""Utility per joule under the day's energy budget, in a page: at each mapping event, of
every (waiting task, cluster, P-state) that can start now on free nodes and whose energy
inside the day fits what the budget has left, start the one that earns the most utility
per joule if it completes as planned; again until none fits. A task that could no longer
earn anything, even started now on its fastest option, is dropped. Nothing is reserved.

    kairos run scenarios/essc-5k.toml --controller "exec:python3 clients/python/examples/utility_energy.py"
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from kairos_client import Decision, serve  # noqa: E402


class UtilityPerJoule:
    def decide(self, state):
        now, plat, out = state.now, state.platform, []
        if now >= plat.day_end:
            return out
        free = [state.free_now(c) for c in range(len(plat.nodes))]
        left = state.energy_left_mj()
        waiting = {}
        for task in state.queue():
            fastest = min(task.duration(c, p) for c in task.clusters() for p in range(plat.pstates))
            if task.value(now - task.arrival + fastest, plat) <= 0.0:
                out.append(Decision.drop(task, now))
            else:
                waiting[task.id] = task
        while True:
            best = None
            for task in waiting.values():
                for c in task.clusters():
                    if not 0 < task.nodes(c) <= free[c]:
                        continue
                    for p in range(plat.pstates):
                        energy = state.day_energy_mj(task, c, p, now)
                        if energy > left:
                            continue
                        u = task.value(now - task.arrival + task.duration(c, p), plat)
                        score = u / max(energy, 1)
                        if u > 0 and (best is None or score > best[0]):
                            best = (score, task, c, p, energy)
            if best is None:
                return out
            _, task, c, p, energy = best
            out.append(Decision.start_now(task, now, c, p))
            free[c] -= task.nodes(c)
            left -= energy
            del waiting[task.id]


if __name__ == "__main__":
    serve(UtilityPerJoule())
