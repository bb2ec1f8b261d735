"""Unit tests of the Python client without kairos: the loop's answers to each request, the
state helpers, and the utility curves. Run: python3 -m unittest discover -s clients/python/tests
(scripts/test does; host/tests/exec_controller.rs runs the client against kairos)."""

import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from kairos_client import SYNC, Decision, serve  # noqa: E402
from kairos_client.messages import Platform, Task  # noqa: E402
from kairos_client.state import State  # noqa: E402

HEADER = {
    "platform": {"clusters": [{"nodes": 4, "cores_per_node": 1, "kind": "General"}],
                 "pstates": 1, "types": []},
    "classes": {"classes": [{"intervals": [{"offset": 0, "psi": 1.0, "delta": 1.0},
                                           {"offset": 60_000_000, "psi": 0.5, "delta": 1.0}]}]},
    "config": {"budget": 10_000, "day_start": 0, "day_end": 100_000_000},
    "schedule": {"interval": 0, "on_completion": True, "on_arrival": True},
    "tasks": 2,
}


def task(i, arrival, nodes, etc, apc=0, curve=None):
    return {"id": i, "arrival": arrival,
            "demand": {"Own": {"placements": [{"nodes": nodes, "etc": [etc, 0, 0, 0],
                                               "apc": [apc, 0, 0, 0]}]}},
            "curve": curve or {"Linear": {"start": 1.0, "soft": 10, "hard": 20, "final_value": 0.0}},
            "actual": None}


class Greedy:
    def decide(self, state):
        free, out = state.free_now(0), []
        for t in state.queue():
            if t.nodes() <= free:
                free -= t.nodes()
                out.append(Decision.start_now(t, state.now))
        return out


def exchange(requests, policy):
    out = io.StringIO()
    lines = [json.dumps({"seq": k + 1, "body": b}) + "\n" for k, b in enumerate(requests)]
    served = serve(policy, stdin=iter(lines), stdout=out)
    return served, [json.loads(line) for line in out.getvalue().splitlines()]


class LoopTest(unittest.TestCase):
    def test_answers_each_request_with_its_number(self):
        served, answers = exchange([
            {"Hello": {"version": 1, "header": HEADER}},
            {"Arrival": task(0, 0, 3, 5_000_000)},
            {"Arrival": task(1, 0, 2, 1_000_000)},
            {"Map": {"now": 0}},
            {"Completion": {"task": 0, "at": 4_000_000, "seq": 1}},
            {"Map": {"now": 4_000_000}},
            "Reset",
        ], Greedy())
        self.assertEqual(served, 7)
        self.assertEqual([a["seq"] for a in answers], list(range(1, 8)))
        self.assertEqual(answers[0]["body"]["Hello"]["version"], 1)
        self.assertEqual(answers[1]["body"], {"Arrived": 0})
        first = answers[3]["body"]["Mapped"]
        self.assertEqual((first["total"], first["from"]), (1, 0))
        self.assertEqual(first["decisions"][0]["decision"],
                         {"task": 0, "kind": "Start", "cluster": 0, "nodes": 3, "pstate": 0,
                          "start": 0, "end": 5_000_000})
        self.assertEqual(answers[4]["body"], {"Completed": 0})
        second = answers[5]["body"]["Mapped"]["decisions"]
        self.assertEqual([d["decision"]["task"] for d in second], [1])
        self.assertEqual(answers[6]["body"], "Reset")

    def test_pages_a_long_event(self):
        reqs = [{"Hello": {"version": 1, "header": dict(HEADER, platform=dict(
            HEADER["platform"], clusters=[{"nodes": 100, "cores_per_node": 1, "kind": "General"}]))}}]
        reqs += [{"Arrival": task(i, 0, 1, 10)} for i in range(60)]
        reqs += [{"Map": {"now": 0}}, {"Page": {"from": 48, "booked": [[i] for i in range(48)]}}]
        _, answers = exchange(reqs, Greedy())
        first, rest = answers[-2]["body"]["Mapped"], answers[-1]["body"]["Mapped"]
        # A full page says one more is to come; the last says how many there were.
        self.assertEqual((first["total"], len(first["decisions"])), (49, 48))
        self.assertEqual((rest["total"], rest["from"], len(rest["decisions"])), (60, 48, 12))

    def test_sync_sends_what_was_decided_and_learns_its_nodes(self):
        seen = []

        class Syncing:
            nodes = True

            def decide(self, state):
                q = state.queue()
                yield Decision.start_now(q[0], state.now)
                yield SYNC
                seen.append(state.held[q[0].id].node_ids)
                yield Decision.start_now(q[1], state.now)

        _, answers = exchange([
            {"Hello": {"version": 1, "header": HEADER}},
            {"Arrival": task(0, 0, 2, 10)},
            {"Arrival": task(1, 0, 1, 10)},
            {"Map": {"now": 0}},
            {"Page": {"from": 1, "booked": [[2, 3]]}},
            {"Page": {"from": 2, "booked": [[0]]}},
        ], Syncing())
        pages = [a["body"]["Mapped"] for a in answers[3:]]
        self.assertEqual([(p["total"], p["from"], len(p["decisions"])) for p in pages],
                         [(2, 0, 1), (3, 1, 1), (2, 2, 0)])
        self.assertEqual(seen, [[2, 3]])


class StateTest(unittest.TestCase):
    def setUp(self):
        self.platform = Platform.of(HEADER)
        self.state = State(self.platform)

    def test_free_nodes_and_earliest_start(self):
        s = self.state
        a = Task.of(task(0, 0, 3, 10), self.platform)
        b = Task.of(task(1, 0, 2, 5), self.platform)
        s.arrived(a)
        s.arrived(b)
        s.apply(Decision.start_now(a, 0))
        self.assertEqual(s.free_now(), 1)
        self.assertEqual([t.id for t in s.queue()], [1])
        self.assertEqual(s.earliest_start(2, 5), 10)
        s.apply(Decision.reserve(b, 10))
        self.assertEqual([h.task.id for h in s.reservations()], [1])
        self.assertEqual(s.free_over(0, 10, 15), 2)
        s.completed(0, 8)
        self.assertEqual(s.free_now(), 4)

    def test_take_back_and_nodes(self):
        s = self.state
        a = Task.of(task(0, 0, 3, 10), self.platform)
        b = Task.of(task(1, 0, 2, 5), self.platform)
        c = Task.of(task(2, 0, 1, 5), self.platform)
        for t in (a, b, c):
            s.arrived(t)
        s.apply(Decision.start_now(a, 0))
        s.booked(0, [1, 2, 3])
        s.apply(Decision.reserve(b, 10))
        s.booked(1, [0, 1])
        # Node 0 is free now but the reservation's from 10: a 5 us task fits, a 20 us one
        # does not.
        self.assertEqual(s.free_nodes(0, 0, 5), {0})
        self.assertEqual(s.free_over(0, 0, 5), 1)
        self.assertEqual(s.free_nodes(0, 0, 20), set())
        s.now = 3
        self.assertIs(s.take_back(1), b)
        self.assertEqual([t.id for t in s.queue()], [1, 2])
        self.assertIsNone(s.take_back(0))
        # Deciding a reserved task again re-places it, as kairos does.
        s.apply(Decision.reserve(b, 10))
        s.apply(Decision.reserve(b, 8))
        self.assertEqual([h.start for h in s.reservations()], [8])
        with self.assertRaises(ValueError):
            s.free_nodes(0, 0, 20)

    def test_energy_inside_the_day(self):
        s = self.state
        # 1 node at 1000 mW for 200 s: 200,000 mJ, half of it inside a day ending at 100 s.
        t = Task.of(task(0, 0, 1, 200_000_000, apc=1000), self.platform)
        self.assertEqual(s.day_energy_mj(t, 0, 0, 0), 100_000)
        self.assertEqual(s.energy_left_mj(), 10_000)

    def test_utility_curves(self):
        lin = Task.of(task(0, 0, 1, 1), self.platform)
        self.assertEqual(lin.value(5, self.platform), 1.0)
        self.assertAlmostEqual(lin.value(15, self.platform), 0.5)
        self.assertEqual(lin.value(21, self.platform), 0.0)
        pe = Task.of(task(1, 0, 1, 1, curve={"PiecewiseExp": {
            "priority": 2.0, "urgency_per_min": 0.1, "first": 1_000_000, "class": 0}}),
            self.platform)
        self.assertEqual(pe.value(0, self.platform), 2.0)
        self.assertLessEqual(pe.value(30_000_000, self.platform), 2.0)
        self.assertGreaterEqual(pe.value(30_000_000, self.platform), 1.0)


if __name__ == "__main__":
    unittest.main()
