"""Before/after timing of engine builds on a noisy machine: runs two or more builds of the
`run_spec` example on one scenario in alternation and prints, per build, the minimum and median
of the engine's own wall time and of the process's user time, the CPU time the hypervisor took
from this machine meanwhile (steal, from /proc/stat), and each build's result digest.

    cargo build --release --example run_spec && cp target/release/examples/run_spec /tmp/before
    # ... change the engine, build again, copy to /tmp/after ...
    python benchmarks/ab.py benchmarks/scenarios/o_l1_heavy_60s.toml /tmp/before /tmp/after -n 5

Alternating (A B A B ...) spreads slow spells of a shared machine over every build, where
running one build's repetitions and then the other's puts a spell on one of them. A change that
claims to keep results byte-identical must show one results digest (the second) for every
build, and one digest (the first, which covers the event count too) unless it saves events.
A scenario file is resolved once (with `ccsim`, so the results are those `ccsim run` gets) into
the JSON that `run_spec` reads; a JSON file is taken as it is. `--duration` shortens the
scenario.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ENGINE_LINE = re.compile(r"packet-hops, ([0-9.]+) s")
DIGEST = re.compile(r"digest (\w+), results (\w+)")


def steal_ticks() -> int:
    """CPU time stolen from this (virtual) machine so far, in clock ticks; 0 where unknown."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
    except OSError:
        return 0
    return int(fields[8]) if len(fields) > 8 else 0


def resolved_spec(scenario: Path, duration: str | None, into: Path) -> Path:
    """The JSON `run_spec` reads: a scenario file resolved by ccsim, or a JSON file as given."""
    if scenario.suffix == ".json" and duration is None:
        return scenario
    import ccsim  # only needed to resolve a scenario file

    s = ccsim.Scenario.load(scenario)
    if duration is not None:
        s = s.with_overrides({"duration": duration})
    out = into / f"{scenario.stem}.json"
    out.write_text(json.dumps(s.resolve()))
    return out


def run_once(build: str, spec: Path) -> tuple[float, float]:
    """One run: the engine's own wall time (as `run_spec` prints it) and the user time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    out = subprocess.run([build, str(spec)], capture_output=True, text=True, check=True).stdout
    user = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    match = ENGINE_LINE.search(out)
    if match is None:
        raise SystemExit(f"{build}: no timing line in its output:\n{out}")
    return float(match.group(1)), user


def digest(build: str, spec: Path) -> str:
    out = subprocess.run(
        [build, "--digest", str(spec)], capture_output=True, text=True, check=True
    ).stdout
    match = DIGEST.search(out)
    return f"{match.group(1)}/{match.group(2)}" if match else "?"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "scenario", type=Path, help="scenario file (.toml, .json, ...) or a resolved spec (.json)"
    )
    parser.add_argument("builds", nargs="+", help="run_spec executables to compare")
    parser.add_argument("-n", "--rounds", type=int, default=5, help="runs per build (default 5)")
    parser.add_argument("--duration", help="override the scenario's duration, e.g. 20s")
    args = parser.parse_args()
    if args.rounds < 1:
        parser.error("--rounds: expected 1 or more")
    for build in args.builds:
        if not Path(build).is_file():
            parser.error(f"builds: {build} is not a file")
    with tempfile.TemporaryDirectory() as tmp:
        spec = resolved_spec(args.scenario, args.duration, Path(tmp))
        walls: dict[str, list[float]] = {b: [] for b in args.builds}
        users: dict[str, list[float]] = {b: [] for b in args.builds}
        stolen = dict.fromkeys(args.builds, 0)
        for _ in range(args.rounds):
            for build in args.builds:
                before = steal_ticks()
                wall, user = run_once(build, spec)
                stolen[build] += steal_ticks() - before
                walls[build].append(wall)
                users[build].append(user)
        digests = {b: digest(b, spec) for b in args.builds}
    width = max(len(b) for b in args.builds)
    print(f"{'build':{width}}  wall min  median  user min  median  steal  digest/results")
    for b in args.builds:
        w, u = walls[b], users[b]
        print(
            f"{b:{width}}  {min(w):8.3f} {statistics.median(w):7.3f}  {min(u):8.3f} "
            f"{statistics.median(u):7.3f}  {stolen[b]:5d}  {digests[b]}"
        )
    results = {d.split("/")[-1] for d in digests.values()}
    if len(results) > 1:
        print("the builds' results differ (digests above)")
    elif len(set(digests.values())) > 1:
        print("the builds' results are byte-identical; their event counts differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
