"""EASY backfilling as kairos's ``--policy easy`` does it (Lifka; seed 000 §III.D.3): at
every mapping event the reservation, if it has not started, is taken back; then in arrival
order each task starts now if it can, the first that cannot gets the one reservation at its
earliest start, and later tasks start now only on nodes free over their whole run, so
never on the reservation's nodes past its start. One cluster.

The reservation holds the nodes kairos gives it, so which tasks can backfill depends on
which nodes those are: the policy yields ``SYNC`` after the reservation and after each
backfill to learn them. The same schedule as ``kairos replay LOG --policy easy``
(docs/protocol.md, "Same schedules as the built-ins").
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from kairos_client import SYNC, Decision, serve  # noqa: E402


class Easy:
    #: It reads which nodes its decisions got (``state.free_nodes``).
    nodes = True

    def decide(self, state):
        now = state.now
        for h in state.reservations():
            state.take_back(h.task.id)
        # Until the reservation is made, every booking runs from now or earlier: counts are
        # exact. After it, which nodes it holds decides who fits.
        free = state.free_now(0)
        reservation = None
        for task in state.queue():
            n, d = task.nodes(0), task.duration(0)
            if reservation is None:
                if n <= free:
                    free -= n
                    yield Decision.start_now(task, now)
                    continue
                at = state.earliest_start(n, d, 0)
                if at is None:
                    continue
                reservation = Decision.reserve(task, at)
                yield reservation
                yield SYNC
                free = len(state.free_nodes(0, now, now + 1))
            elif n <= free and n <= len(state.free_nodes(0, now, now + d)):
                yield Decision.start_now(task, now)
                yield SYNC
                free = len(state.free_nodes(0, now, now + 1))
            if reservation is not None and free == 0:
                break


if __name__ == "__main__":
    serve(Easy())
