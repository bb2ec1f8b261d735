#!/usr/bin/env python3
"""Draws jobs from the PyPI package parallelworkloads (Lublin99, both job types, the model's
published 128-processor parameters) for host/tests/lublin99_reference.rs.

usage: lublin99_reference.py JOBS SEED   -> one JSON object {"submit", "run", "procs"} on stdout
       lublin99_reference.py --check     -> exit 0 if the model can be imported
Exit 3, with the reason on stderr, when the package has no usable model.
"""
import json
import sys


def model():
    errors = []
    for name in ("parallelworkloads.lublin99", "lublin99"):
        try:
            module = __import__(name, fromlist=["Lublin99"])
            return module.Lublin99
        except (ImportError, AttributeError) as e:
            errors.append(f"{name}: {e}")
    try:
        from importlib.metadata import version

        installed = f"parallelworkloads {version('parallelworkloads')} is installed"
    except Exception:
        installed = "parallelworkloads is not installed"
    sys.stderr.write(
        f"{installed} but its Lublin99 model cannot be imported ({'; '.join(errors)}). "
        "PyPI's 0.1.3 ships only __init__.py; 0.1.0's sdist does not build (its setup.py "
        "cythonizes .pyx files the sdist lacks).\n"
    )
    sys.exit(3)


def main():
    Lublin99 = model()
    if sys.argv[1:] == ["--check"]:
        return
    jobs, seed = int(sys.argv[1]), int(sys.argv[2])
    w = Lublin99(1, seed)  # 1: batch and interactive jobs
    w.numJobs = jobs
    out = {"submit": [], "run": [], "procs": []}
    for j in w.generate():
        out["submit"].append(float(j.submissionTime))
        out["run"].append(float(j.runTime))
        out["procs"].append(int(j.allocProcs))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
