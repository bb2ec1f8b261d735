"""Serves as examples/fcfs.py does (or as a controller that starts every waiting task now,
with ``--busy``), writing every line it reads and writes to the file given, one JSON
object a line: ``{"to": "controller" | "kairos", "message": ...}``. For the JSON Schema
test in host/tests/exec_controller.rs.

    record.py LOG [--busy]
"""

import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../../../clients/python"))
sys.path.insert(0, os.path.join(here, "../../../../clients/python/examples"))

from fcfs import Fcfs  # noqa: E402
from kairos_client import Decision, serve  # noqa: E402

log = open(sys.argv[1], "w")


class In:
    def __iter__(self):
        for line in sys.stdin:
            log.write(json.dumps({"to": "controller", "message": json.loads(line)}) + "\n")
            log.flush()
            yield line


class Out:
    def __init__(self):
        self.buf = ""

    def write(self, s):
        self.buf += s

    def flush(self):
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            log.write(json.dumps({"to": "kairos", "message": json.loads(line)}) + "\n")
            sys.stdout.write(line + "\n")
        log.flush()
        sys.stdout.flush()


class Busy:
    def decide(self, state):
        return [Decision.start_now(t, state.now) for t in state.queue()]


serve(Busy() if "--busy" in sys.argv else Fcfs(), stdin=In(), stdout=Out())
