"""The loop: reads kairos's requests from stdin, keeps the ``State``, asks the policy for
each mapping event's decisions and answers on stdout (docs/protocol.md).

A policy is any object with ``decide(state)`` returning (or yielding) the event's
decisions (``state.now`` is the event's time); it may also have ``hello(platform)``,
``arrived(task, state)``, ``completed(task_id, at, state)`` and ``refused(why)``.

Each decision is recorded in the state as it is yielded. A policy that needs to know which
nodes kairos gave its decisions (``Held.node_ids``, ``State.free_nodes``) yields ``SYNC``:
the loop sends the decisions so far, kairos applies them and says which nodes each got in
its next ``Page`` request (docs/protocol.md, "Nodes"), and the generator resumes with the
state knowing them. With ``nodes = True`` on the policy, the loop also learns the nodes of
an event's last decisions before it ends the event.
"""

import json
import sys
from typing import Any, Dict, Iterator, List, Optional, TextIO

from .messages import PAGE, VERSION, Decision, Platform, Task
from .state import State


class ProtocolError(Exception):
    """kairos sent something this client does not understand."""


#: Yielded by a policy's ``decide``: send the decisions so far and learn their nodes.
SYNC = object()


def _page(decisions: List[Decision], start: int, more: bool) -> Dict[str, Any]:
    """A page of ``decisions`` from ``start``: ``total`` one past it when ``more`` are to
    come (kairos then asks the next page, telling this one's nodes)."""
    return {"Mapped": {
        "total": start + len(decisions) + (1 if more else 0),
        "from": start,
        # The policy's own ledgers are kairos's business: it keeps the authoritative ones.
        "utility": 0,
        "consumed": 0,
        "decisions": [{"decision": d.to_json(), "fate": "None"} for d in decisions],
    }}


class _Event:
    """A mapping event under way: the policy's decisions, paged out as it yields them."""

    def __init__(self, policy: Any, state: State):
        self.state = state
        self.source: Iterator[Any] = iter(policy.decide(state))
        self.wants_nodes = bool(getattr(policy, "nodes", False))
        #: Decisions sent so far, and those of the last page (whose nodes come next).
        self.sent = 0
        self.last: List[Decision] = []
        self.done = False

    def next_page(self) -> Dict[str, Any]:
        """Pulls decisions up to a ``SYNC``, a full page or the end; returns the page."""
        batch: List[Decision] = []
        synced = False
        while not self.done and len(batch) < PAGE:
            item = next(self.source, None)
            if item is None:
                self.done = True
            elif item is SYNC:
                if batch:
                    synced = True
                    break
            else:
                self.state.apply(item)
                batch.append(item)
        # More to come: the policy is not done, or it wants the nodes of these last ones.
        more = bool(batch) and (not self.done or synced or self.wants_nodes)
        page = _page(batch, self.sent, more)
        self.sent += len(batch)
        self.last = batch
        return page

    def booked(self, start: int, booked: List[List[int]]) -> None:
        if start != self.sent:
            raise ProtocolError(f"kairos asked for the page from {start}, the loop sent {self.sent}")
        for d, ids in zip(self.last, booked):
            if d.kind != "Drop":
                self.state.booked(d.task, ids)


def serve(policy: Any, stdin: Optional[TextIO] = None, stdout: Optional[TextIO] = None) -> int:
    """Answers kairos until it closes stdin; returns how many requests were answered."""
    inp = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    state: Optional[State] = None
    event: Optional[_Event] = None
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
            state, event, answer = None, None, "Reset"
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
            event = _Event(policy, state)
            answer = event.next_page()
        elif kind == "Page":
            if event is None:
                raise ProtocolError("kairos asked for a page outside a mapping event")
            event.booked(args["from"], args.get("booked", []))
            answer = event.next_page()
        else:
            raise ProtocolError(f"unknown request {kind!r}")
        out.write(json.dumps({"seq": seq, "body": answer}, separators=(",", ":")))
        out.write("\n")
        out.flush()
        served += 1
    return served
