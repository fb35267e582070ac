"""How much longer is the offline plan of a whole fleet than one member's? Prints figures; asserts nothing.

The fleet example (stacks/Pulumi.fleet.yaml and its two members, fleet-weu and fleet-eus) planned together, ``python -m
components plan --fleet fleet --json``, against one member planned alone, ``python -m components plan --stack fleet-weu
--json``: each a fresh process, as a user or CI runs it, in paired runs (fleet then member, member then fleet, ...: the
order alternates from pair to pair). Each ratio is fleet_i / member_i of one pair; the target is at most 2 (issue 36:
the fleet plans its three stacks in one process, so the interpreter, the SDKs and the package load once).

Usage (from the repository root): ``python benchmarks/fleet_plan_bench.py [--pairs 7]``.
"""

from __future__ import annotations

import argparse
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FLEET = [sys.executable, "-m", "components", "plan", "--fleet", "fleet", "--json"]
MEMBER = [sys.executable, "-m", "components", "plan", "--stack", "fleet-weu", "--json"]
TARGET = 2.0


def timed(command: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, of the child) of one run of `command` in the repository's root;
    fails loudly if the command does. CPU time is the steadier figure on a machine others share."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Runs the pairs and prints each side's median and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=7, help="paired runs (default 7)")
    args = parser.parse_args()
    timed(MEMBER)  # warm the file cache: the first run of all reads every module from disk
    fleet, member = [], []
    for i in range(args.pairs):
        if i % 2 == 0:
            fleet.append(timed(FLEET))
            member.append(timed(MEMBER))
        else:
            member.append(timed(MEMBER))
            fleet.append(timed(FLEET))
    print(f"python {platform.python_version()} on {platform.machine()}, {args.pairs} pairs")
    for index, what in ((0, "wall"), (1, "CPU")):
        f = [run[index] for run in fleet]
        m = [run[index] for run in member]
        ratios = [a / b for a, b in zip(f, m, strict=True)]
        ratio = statistics.median(ratios)
        print(f"{what}: plan --fleet fleet (fleet + 2 members) median {statistics.median(f):.2f} s (min {min(f):.2f}, "
              f"max {max(f):.2f}); plan --stack fleet-weu median {statistics.median(m):.2f} s (min {min(m):.2f}, "
              f"max {max(m):.2f})")
        print(f"  ratio fleet / member: median {ratio:.2f} (min {min(ratios):.2f}, max {max(ratios):.2f}); target at "
              f"most {TARGET:g}: {'within' if ratio <= TARGET else 'OVER'}")

if __name__ == "__main__":
    main()
