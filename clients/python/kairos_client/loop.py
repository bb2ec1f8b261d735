"""The loop: reads kairos's requests from stdin, keeps the ``State``, asks the policy for
each mapping event's decisions and answers on stdout (docs/protocol.md).

A policy is any object with ``decide(state) -> list of Decision`` (``state.now`` is the
event's time); it may also have ``hello(platform)``, ``arrived(task, state)``,
``completed(task_id, at, state)`` and ``refused(decision, why)``.
"""

import json
import sys
from typing import Any, Dict, List, Optional, TextIO

from .messages import PAGE, VERSION, Decision, Platform, Task
from .state import State


class ProtocolError(Exception):
    """kairos sent something this client does not understand."""


def _page(decisions: List[Decision], start: int) -> Dict[str, Any]:
    return {"Mapped": {
        "total": len(decisions),
        "from": start,
        # The policy's own ledgers are kairos's business: it keeps the authoritative ones.
        "utility": 0,
        "consumed": 0,
        "decisions": [{"decision": d.to_json(), "fate": "None"}
                      for d in decisions[start:start + PAGE]],
    }}


def serve(policy: Any, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None) -> int:
    """Answers kairos until it closes stdin; returns how many requests were answered."""
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    state: Optional[State] = None
    decisions: List[Decision] = []
    served = 0
    for line in inp:
        msg = json.loads(line)
        seq, body = msg["seq"], msg["body"]
        if isinstance(body, str):
            kind, args = body, None
        else:
            (kind, args), = body.items()
        if kind == "Fault":
            # kairos refused a decision (or gave up); it ends the run next.
            why = json.dumps(args)
            hook = getattr(policy, "refused", None)
            if hook is not None:
                hook(why)
            print(f"kairos refused: {why}", file=sys.stderr)
            continue
        if kind == "Hello":
            if args["version"] != VERSION:
                raise ProtocolError(f"kairos speaks protocol {args['version']}, this client {VERSION}")
            platform = Platform.of(args["header"])
            state = State(platform)
            hook = getattr(policy, "hello", None)
            if hook is not None:
                hook(platform)
            answer: Any = {"Hello": {"version": VERSION, "tasks": 2**32 - 1,
                                     "nodes": sum(platform.nodes), "decisions": 2**32 - 1,
                                     "payload": 2**32 - 1}}
        elif kind == "Reset":
            state, decisions, answer = None, [], "Reset"
        elif state is None:
            answer = {"Fault": "NoSession"}
        elif kind == "Arrival":
            task = Task.of(args, state.platform)
            state.arrived(task)
            hook = getattr(policy, "arrived", None)
            if hook is not None:
                hook(task, state)
            answer = {"Arrived": task.id}
        elif kind == "Completion":
            state.completed(args["task"], args["at"])
            hook = getattr(policy, "completed", None)
            if hook is not None:
                hook(args["task"], args["at"], state)
            answer = {"Completed": 0}
        elif kind == "Map":
            state.now = args["now"]
            decisions = list(policy.decide(state))
            for d in decisions:
                state.apply(d)
            answer = _page(decisions, 0)
        elif kind == "Page":
            answer = _page(decisions, args["from"])
        elif kind == "Status":
            answer = {"Status": {"now": state.now, "utility": 0, "consumed": state.spent_mj,
                                 "committed": state.committed_mj,
                                 "budget": state.platform.budget_mj,
                                 "counts": {"arrived": 0, "completed": 0, "dropped": 0,
                                            "mapping_events": 0, "started": 0},
                                 "day_end": state.platform.day_end,
                                 "slots_used": len(state.waiting) + len(state.held)}}
        else:
            raise ProtocolError(f"unknown request {kind!r}")
        out.write(json.dumps({"seq": seq, "body": answer}, separators=(",", ":")))
        out.write("\n")
        out.flush()
        served += 1
    return served
