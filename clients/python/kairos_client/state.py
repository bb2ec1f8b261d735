"""What the loop keeps for a policy between messages: the waiting queue in arrival order,
the tasks holding nodes (running, or reserved from a later start), the energy committed,
and the questions a policy asks of them (free nodes now, when enough nodes free up).

Counts of nodes, not named nodes: kairos picks which nodes a decision gets, and refuses
one whose nodes are not free over its run (docs/protocol.md, "Checks").
"""

from dataclasses import dataclass
from typing import Dict, List, Optional

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

    def earliest_start(self, nodes: int, duration: int, cluster: int = 0) -> Optional[int]:
        """The first time from now at which ``nodes`` nodes of ``cluster`` are free for
        ``duration`` (by planned ends; None if the cluster is too small)."""
        if nodes > self.platform.nodes[cluster]:
            return None
        times = sorted({self.now} | {h.end for h in self.held.values()
                                     if h.cluster == cluster and h.end > self.now})
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

    def apply(self, d: Decision) -> None:
        """Records a decision the policy made (kairos checks it; a refusal ends the run)."""
        task = self.waiting.pop(d.task, None)
        if task is None or d.kind == "Drop":
            return
        energy = self.day_energy_mj(task, d.cluster, d.pstate, d.start)
        self.held[d.task] = Held(task, d.cluster, d.nodes, d.start, d.end, energy)
        self.committed_mj += energy
