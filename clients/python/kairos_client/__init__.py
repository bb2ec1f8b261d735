"""A client for kairos's exec controllers: write a scheduling policy in Python and run it
with ``kairos replay LOG --controller "exec:python3 my_policy.py"`` (or ``kairos run``).

Standard library only (Python 3.9+). The protocol is docs/protocol.md: kairos sends one
JSON object a line on the policy's stdin and reads one answer a line on its stdout, so a
policy must never print to stdout (log to stderr).

- ``messages``: the protocol's messages as Python objects (tasks, placements, decisions).
- ``state``: what the loop keeps for the policy: the queue, the running and reserved
  tasks, free nodes now and later.
- ``loop``: ``serve(policy)``, the loop that answers kairos and calls the policy.
"""

from .messages import Decision, Placement, Platform, Task, VERSION
from .state import Held, State
from .loop import SYNC, serve

__all__ = ["Decision", "Held", "Placement", "Platform", "SYNC", "State", "Task", "VERSION", "serve"]
