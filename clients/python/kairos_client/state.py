"""What the loop keeps for a policy between messages: the waiting queue in arrival order,
the tasks holding nodes (running, or reserved from a later start), the energy committed,
and the questions a policy asks of them (free nodes now, when enough nodes free up).

A decision names a count of nodes; kairos picks which nodes it gets, refuses one whose
nodes are not free over its run (docs/protocol.md, "Checks") and says which it picked in
the next ``Page`` request (docs/protocol.md, "Nodes"): ``Held.node_ids`` once known.
The counting helpers (``free_over``, ``earliest_start``) are exact while every booking
runs from now or earlier; with a reservation later, which nodes it holds matters, and
``free_nodes`` answers from the node ids.
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Set

from .messages import Decision, Platform, Task


@dataclass
class Held:
    """A task holding nodes: running, or reserved from ``start``."""

    task: Task
    cluster: int
    nodes: int
    start: int
    #: Planned end, microseconds (it may complete earlier).
    end: int
    #: Energy committed inside the day, millijoules.
    energy_mj: int
    #: The nodes kairos gave it (indices within the cluster), once it has said.
    node_ids: Optional[List[int]] = None


class State:
    """The run as the loop knows it."""

    def __init__(self, platform: Platform):
        self.platform = platform
        #: The time of the last message, microseconds.
        self.now = 0
        #: Waiting tasks by id, in arrival order (dicts keep insertion order).
        self.waiting: Dict[int, Task] = {}
        #: Tasks holding nodes, by id.
        self.held: Dict[int, Held] = {}
        #: Energy committed to started and reserved tasks inside the day, millijoules.
        self.committed_mj = 0
        #: Energy of completed tasks inside the day (at their planned energy), millijoules.
        self.spent_mj = 0

    # ----- What a policy reads. -----

    def queue(self) -> List[Task]:
        """The waiting tasks, in arrival order."""
        return list(self.waiting.values())

    def free_now(self, cluster: int = 0) -> int:
        """Nodes of ``cluster`` free now and until the next reservation's start."""
        return self.free_over(cluster, self.now, self.now + 1)

    def free_over(self, cluster: int, start: int, end: int) -> int:
        """Nodes of ``cluster`` no held task uses at any time in ``[start, end)`` (an upper
        bound on what kairos can give: it counts nodes, as kairos's check does when every
        task's nodes are free over the whole run)."""
        used = sum(h.nodes for h in self.held.values()
                   if h.cluster == cluster and h.start < end and h.end > start)
        return self.platform.nodes[cluster] - used

    def running(self, cluster: Optional[int] = None) -> List[Held]:
        """The tasks that have started (on ``cluster``, or any), by planned end."""
        return sorted((h for h in self.held.values()
                       if h.start <= self.now and (cluster is None or h.cluster == cluster)),
                      key=lambda h: (h.end, h.task.id))

    def reservations(self) -> List[Held]:
        """The tasks reserved from a later start, by start."""
        return sorted((h for h in self.held.values() if h.start > self.now),
                      key=lambda h: (h.start, h.task.id))

    def free_nodes(self, cluster: int, start: int, end: int) -> Set[int]:
        """The nodes of ``cluster`` (indices) no held task uses at any time in ``[start,
        end)``: exactly the nodes kairos's check counts. Every held task overlapping it must
        have its ``node_ids`` (a policy that reads nodes yields ``SYNC`` after decisions
        whose nodes it needs, and sets ``nodes = True``: loop.py)."""
        free = set(range(self.platform.nodes[cluster]))
        for h in self.held.values():
            if h.cluster == cluster and h.start < end and h.end > start:
                if h.node_ids is None:
                    raise ValueError(f"the nodes of task {h.task.id} are not known yet "
                                     "(yield SYNC after deciding it)")
                free.difference_update(h.node_ids)
        return free

    def earliest_start(self, nodes: int, duration: int, cluster: int = 0) -> Optional[int]:
        """The first time from now at which ``nodes`` nodes of ``cluster`` are free for
        ``duration`` (by planned ends; None if the cluster is too small)."""
        if nodes > self.platform.nodes[cluster]:
            return None
        mine = [h for h in self.held.values() if h.cluster == cluster and h.end > self.now]
        if all(h.start <= self.now for h in mine):
            # Every booking runs from now or earlier: a node is free from its end on, so the
            # answer is the first planned end by which enough nodes are free.
            free = self.platform.nodes[cluster] - sum(h.nodes for h in mine)
            if free >= nodes:
                return self.now
            for h in sorted(mine, key=lambda h: h.end):
                free += h.nodes
                if free >= nodes:
                    return h.end
            return None
        times = sorted({self.now} | {h.end for h in mine})
        for t in times:
            if self.free_over(cluster, t, t + duration) >= nodes:
                return t
        return None

    def day_energy_mj(self, task: Task, cluster: int, pstate: int, start: int) -> int:
        """The share of a run's energy inside the day, millijoules: what the budget is
        charged (kairos's ``energy::window_share``)."""
        p = task.placements[cluster] if 0 <= cluster < len(task.placements) else None
        if p is None:
            return 0
        total, end = p.energy_mj(pstate), start + p.etc[pstate]
        w0, w1 = self.platform.day_start, self.platform.day_end
        if end <= start:
            return total if w0 <= end < w1 else 0
        if w0 <= start and end <= w1:
            return total
        lo, hi = max(start, w0), min(end, w1)
        if hi <= lo:
            return 0
        return total * (hi - start) // (end - start) - total * (lo - start) // (end - start)

    def energy_left_mj(self) -> int:
        """What the day's budget has left for new commitments, millijoules."""
        return max(0, self.platform.budget_mj - self.committed_mj - self.spent_mj)

    # ----- What the loop does. -----

    def arrived(self, task: Task) -> None:
        self.now = task.arrival
        self.waiting[task.id] = task

    def completed(self, task: int, at: int) -> None:
        self.now = at
        h = self.held.pop(task, None)
        if h is not None:
            self.committed_mj -= h.energy_mj
            self.spent_mj += h.energy_mj

    def take_back(self, task: int) -> Optional[Task]:
        """Takes back the reservation of ``task`` if it has not started: the task waits
        again, in its place in arrival order. kairos takes it back when the policy decides
        the task again in this event (docs/protocol.md, "Checks"), so a policy that takes
        one back decides it again. Returns the task (None: no such reservation)."""
        h = self.held.get(task)
        if h is None or h.start <= self.now:
            return None
        del self.held[task]
        self.committed_mj -= h.energy_mj
        if not self.waiting or task > next(reversed(self.waiting)):
            self.waiting[task] = h.task
        elif task < next(iter(self.waiting)):
            # EASY's case: the reserved task heads the queue (every earlier one started).
            self.waiting = {task: h.task, **self.waiting}
        else:
            self.waiting[task] = h.task
            self.waiting = dict(sorted(self.waiting.items()))
        return h.task

    def booked(self, task: int, node_ids: List[int]) -> None:
        """Records the nodes kairos gave ``task``'s decision."""
        h = self.held.get(task)
        if h is not None:
            h.node_ids = list(node_ids)

    def apply(self, d: Decision) -> None:
        """Records a decision the policy made (kairos checks it; a refusal ends the run). A
        task holding a reservation that has not started is re-placed, as kairos does."""
        self.take_back(d.task)
        task = self.waiting.pop(d.task, None)
        if task is None or d.kind == "Drop":
            return
        energy = self.day_energy_mj(task, d.cluster, d.pstate, d.start)
        self.held[d.task] = Held(task, d.cluster, d.nodes, d.start, d.end, energy)
        self.committed_mj += energy
