"""The protocol's messages as Python objects (docs/protocol.md has every field and unit).

Times are integer microseconds, energy integer millijoules, power integer milliwatts; a
task's id is its index in arrival order. Only what a policy reads is turned into objects;
the rest of each message stays in ``raw``.
"""

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

#: The protocol version this client speaks (kairos's ``wire::message::VERSION``).
VERSION = 1

#: Decisions in one page of an answer to a mapping event (kairos's ``wire::message::PAGE``).
PAGE = 48


@dataclass(frozen=True)
class Placement:
    """What a task needs on one cluster."""

    nodes: int
    #: Planned run time per P-state, microseconds.
    etc: List[int]
    #: Average power of each node per P-state, milliwatts.
    apc: List[int]

    @staticmethod
    def of(raw: Dict[str, Any]) -> "Placement":
        return Placement(nodes=raw["nodes"], etc=list(raw["etc"]), apc=list(raw["apc"]))

    def energy_mj(self, pstate: int) -> int:
        """Energy of one run at ``pstate``, millijoules (as the core counts it)."""
        return self.apc[pstate] * self.nodes * self.etc[pstate] // 1_000_000


@dataclass
class Platform:
    """The clusters and what the hello says of the run."""

    #: Nodes of each cluster.
    nodes: List[int]
    #: P-states every cluster offers.
    pstates: int
    #: The platform's task types: per type, a placement (or None) per cluster.
    types: List[List[Optional[Placement]]]
    #: The day's energy budget, millijoules (2**64 - 1: none).
    budget_mj: int
    #: The day, microseconds.
    day_start: int
    day_end: int
    #: The utility classes piecewise-exponential curves name: per class, its intervals
    #: after the first as (offset in microseconds, psi, delta).
    classes: List[List[tuple]] = field(default_factory=list)
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @staticmethod
    def of(header: Dict[str, Any]) -> "Platform":
        p = header["platform"]
        types = [
            [None if pl is None else Placement.of(pl) for pl in t["placements"]]
            for t in p["types"]
        ]
        cfg = header["config"]
        return Platform(
            nodes=[c["nodes"] for c in p["clusters"]],
            pstates=p["pstates"],
            types=types,
            budget_mj=cfg["budget"],
            day_start=cfg["day_start"],
            day_end=cfg["day_end"],
            classes=[[(i["offset"], i["psi"], i["delta"]) for i in c["intervals"]]
                     for c in header["classes"]["classes"]],
            raw=header,
        )


@dataclass
class Task:
    """A task as it arrives."""

    id: int
    #: Arrival time, microseconds.
    arrival: int
    #: Per cluster, its placement there (None: it cannot run there).
    placements: List[Optional[Placement]]
    #: Its utility curve, as kairos sends it (docs/protocol.md).
    curve: Dict[str, Any]
    raw: Dict[str, Any] = field(repr=False, default_factory=dict)

    @staticmethod
    def of(raw: Dict[str, Any], platform: Platform) -> "Task":
        demand = raw["demand"]
        if "Own" in demand:
            placements = [None if p is None else Placement.of(p) for p in demand["Own"]["placements"]]
        else:
            placements = platform.types[demand["Typed"]]
        return Task(
            id=raw["id"],
            arrival=raw["arrival"],
            placements=placements,
            curve=raw["curve"],
            raw=raw,
        )

    def value(self, since_us: int, platform: Platform) -> float:
        """What completing ``since_us`` microseconds after its arrival is worth (kairos's
        ``UtilityCurve::value_at``, in floats: for ranking, not for the ledger)."""
        (kind, c), = self.curve.items()
        if kind == "Linear":
            if since_us > c["hard"]:
                return 0.0
            if since_us == c["hard"]:
                return c["final_value"]
            if since_us <= c["soft"]:
                return c["start"]
            frac = (since_us - c["soft"]) / (c["hard"] - c["soft"])
            return min(max(c["start"] - (c["start"] - c["final_value"]) * frac,
                           c["final_value"]), c["start"])
        if kind == "PiecewiseExp":
            p, first = c["priority"], c["first"]
            if since_us < first:
                return p
            dt, ivs = since_us - first, platform.classes[c["class"]]
            k = max((i for i, iv in enumerate(ivs) if iv[0] <= dt), default=None)
            if k is None:
                return p
            offset, psi, delta = ivs[k]
            hi, lo = psi * p, (ivs[k + 1][1] if k + 1 < len(ivs) else 0.0) * p
            u = (hi - lo) * math.exp(-(delta * c["urgency_per_min"]) * (dt - offset) / 60e6) + lo
            return min(max(u, lo), hi)
        raise ValueError(f"unknown utility curve {kind!r}")

    def clusters(self) -> List[int]:
        """The clusters it may run on, by index."""
        return [c for c, p in enumerate(self.placements) if p is not None]

    def nodes(self, cluster: int = 0) -> int:
        """Nodes it needs on ``cluster``."""
        p = self.placements[cluster]
        if p is None:
            raise ValueError(f"task {self.id} cannot run on cluster {cluster}")
        return p.nodes

    def duration(self, cluster: int = 0, pstate: int = 0) -> int:
        """Its planned run time on ``cluster`` at ``pstate``, microseconds."""
        p = self.placements[cluster]
        if p is None:
            raise ValueError(f"task {self.id} cannot run on cluster {cluster}")
        return p.etc[pstate]


@dataclass(frozen=True)
class Decision:
    """A decision: ``kind`` is "Start" (at the event's time), "Reserve" (later) or "Drop"."""

    task: int
    kind: str
    cluster: int = 0
    nodes: int = 0
    pstate: int = 0
    start: int = 0
    end: int = 0

    @staticmethod
    def start_now(task: Task, now: int, cluster: int = 0, pstate: int = 0) -> "Decision":
        """Starts ``task`` at ``now`` on ``cluster`` at ``pstate``."""
        return Decision(task.id, "Start", cluster, task.nodes(cluster), pstate, now,
                        now + task.duration(cluster, pstate))

    @staticmethod
    def reserve(task: Task, at: int, cluster: int = 0, pstate: int = 0) -> "Decision":
        """Reserves ``task``'s nodes from ``at`` (after the event's time) on ``cluster``."""
        return Decision(task.id, "Reserve", cluster, task.nodes(cluster), pstate, at,
                        at + task.duration(cluster, pstate))

    @staticmethod
    def drop(task: Task, now: int) -> "Decision":
        """Drops ``task``: it never runs."""
        return Decision(task.id, "Drop", 0, 0, 0, now, now)

    def to_json(self) -> Dict[str, Any]:
        return {
            "task": self.task, "kind": self.kind, "cluster": self.cluster, "nodes": self.nodes,
            "pstate": self.pstate, "start": self.start, "end": self.end,
        }
