"""EASY backfilling over processor counts (Lifka; the textbook one, as pyss): FCFS, then a
reservation for the first waiting task at the earliest time enough nodes will be free (by
the running tasks' planned ends), and later tasks start now only if they fit and either
end by then or use nodes the reservation leaves over. One cluster.

The same schedule as ``kairos replay LOG --policy easy --allocation pool``. kairos's own
``--policy easy`` books the reservation on named nodes when it makes it, so it can differ
(docs/traces.md, "Reservations hold nodes"); this policy keeps its reservation to itself.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from kairos_client import Decision, serve  # noqa: E402


class Easy:
    def decide(self, state):
        now, out = state.now, []
        free = state.free_now(0)
        queue = state.queue()
        while queue and queue[0].nodes() <= free:
            task = queue.pop(0)
            free -= task.nodes()
            out.append(Decision.start_now(task, now))
        if len(queue) < 2 or free == 0:
            return out
        # The shadow time: when the first waiting task would have its nodes, and how many
        # nodes are left over then.
        need, avail = queue[0].nodes(), free
        shadow, extra = None, 0
        ends = {}
        running = [(h.end, h.nodes) for h in state.running(0)]
        running += [(d.end, d.nodes) for d in out]  # started in this pass
        for end, nodes in running:
            ends[end] = ends.get(end, 0) + nodes
        for end in sorted(ends):
            avail += ends[end]
            if avail >= need:
                shadow, extra = end, avail - need
                break
        for task in queue[1:]:
            if free == 0:
                break
            n = task.nodes()
            if n > free:
                continue
            by_shadow = shadow is None or now + task.duration() <= shadow
            if by_shadow or n <= extra:
                if not by_shadow:
                    extra -= n
                free -= n
                out.append(Decision.start_now(task, now))
        return out


if __name__ == "__main__":
    serve(Easy())
