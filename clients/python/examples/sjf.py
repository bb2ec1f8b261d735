"""Shortest request first: the tutorial's policy (docs/tutorial.md)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from kairos_client import Decision, serve  # noqa: E402


class ShortestFirst:
    """At each mapping event, start waiting jobs now, shortest request first, while they
    fit in the free nodes. No reservation: a wide job can wait long behind narrow ones."""

    def decide(self, state):
        free, out = state.free_now(0), []
        for task in sorted(state.queue(), key=lambda t: (t.duration(), t.id)):
            if task.nodes() <= free:
                free -= task.nodes()
                out.append(Decision.start_now(task, state.now))
        return out


if __name__ == "__main__":
    serve(ShortestFirst())
