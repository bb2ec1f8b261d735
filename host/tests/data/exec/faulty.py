"""A controller that misbehaves on purpose, for host/tests/exec_controller.rs:

    faulty.py MODE

Lies (kairos must refuse the decision): busy (starts every waiting task now, free nodes or
not), unarrived (starts a task that never arrived), partition (starts a task on a cluster
it cannot use), budget (FCFS ignoring the energy budget), shape (a start with the wrong
end). Breaks the protocol at its second answer (to the first arrival): dies (exits), hangs (sleeps), garbage
(writes a line that is not JSON), wrong-id (answers an arrival with another id),
wrong-seq (answers another request number).
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../../../clients/python"))

from kairos_client import Decision, serve  # noqa: E402

MODE = sys.argv[1]


class Liar:
    def decide(self, state):
        now, queue = state.now, state.queue()
        if MODE == "busy":
            return [Decision.start_now(t, now) for t in queue]
        if MODE == "unarrived":
            return [Decision(10**6, "Start", 0, 1, 0, now, now + 1)]
        if MODE == "partition":
            return [Decision(t.id, "Start", 1, t.nodes(0), 0, now, now + t.duration(0))
                    for t in queue[:1]]
        if MODE == "shape":
            return [Decision(t.id, "Start", 0, t.nodes(0), 0, now, now + t.duration(0) + 1)
                    for t in queue[:1]]
        if MODE == "budget":
            out, free = [], {c: state.free_now(c) for c in range(len(state.platform.nodes))}
            for t in queue:
                fits = [c for c in t.clusters() if 0 < t.nodes(c) <= free[c]]
                if not fits:
                    break
                free[fits[0]] -= t.nodes(fits[0])
                out.append(Decision.start_now(t, now, fits[0]))
            return out
        return []


class Breaker:
    """stdout, breaking the protocol at the second answer as MODE says."""

    def __init__(self):
        self.buf, self.lines = "", 0

    def write(self, s):
        self.buf += s

    def flush(self):
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            self.lines += 1
            if self.lines == 2:
                line = self.bend(line)
            sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def bend(self, line):
        if MODE == "dies":
            os._exit(3)
        if MODE == "hangs":
            time.sleep(3600)
        if MODE == "garbage":
            return "this is not a response"
        msg = json.loads(line)
        if MODE == "wrong-id":
            msg["body"]["Arrived"] += 1
        if MODE == "wrong-seq":
            msg["seq"] += 5
        return json.dumps(msg)


if __name__ == "__main__":
    if MODE in ("busy", "unarrived", "partition", "shape", "budget"):
        serve(Liar())
    else:
        # An honest policy (it never decides anything) over a stdout that breaks.
        serve(Liar(), stdout=Breaker())
