"""Performance harness: runs the reference scenarios and prints, for each, wall time, simulated
seconds, events/s, packet-hops/s (a packet crossing one link is one hop), peak memory and build
time (resolving the scenario and building the engine's network and flows, measured on its own).

    python benchmarks/run.py                 # all reference scenarios
    python benchmarks/run.py a_dumbbell_100m # one of them
    python benchmarks/run.py --repeat 3      # best of three

Each scenario runs in a fresh Python process, so its peak memory (ru_maxrss) is its own. The
scenarios are ordinary scenario files: `ccsim run benchmarks/scenarios/<name>.toml` simulates
exactly the same thing and reports the same goodput and drops printed here. The memory check runs
scenario (a) for twice its duration: without sampled series, peak memory must not grow with
simulated time. A scenario may name an algorithm written in Python by its import path from the
repository's root (`examples.python_cc.reno:Reno`): the child runs there.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCENARIOS = sorted((HERE / "scenarios").glob("*.toml"))

CHILD = r"""
import json, resource, sys, time
import ccsim, ccsim.runner
import pandas, pyarrow, pyarrow.parquet  # imported before measuring: not part of the run
scenario = ccsim.Scenario.load(sys.argv[1])
if len(sys.argv) > 2:
    scenario = scenario.with_overrides({"duration": sys.argv[2]})
start = time.perf_counter()
built = ccsim.runner.build(scenario)  # with the scenario's Python algorithms, if any
build = time.perf_counter() - start
del built
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
results = ccsim.run(scenario)
wall = time.perf_counter() - start
flows, links = results.flows, results.links
print(json.dumps({
    "wall_s": wall,
    "build_s": build,
    "sim_s": results.summary["duration_s"],
    "events": results.summary["events"],
    "packet_hops": results.summary["packet_hops"],
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "baseline_mb": rss_before / 1024,
    "goodput_mbps": float(flows["goodput_bps"].sum()) / 1e6,
    "drops": int(links["drops"].sum()),
}))
"""


def measure(path: Path, duration: str | None = None) -> dict:
    args = [sys.executable, "-c", CHILD, str(path)] + ([duration] if duration else [])
    # From the repository's root, so that a scenario may name a Python algorithm of examples/.
    out = subprocess.run(args, check=True, capture_output=True, text=True, cwd=HERE.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def best_of(path: Path, repeat: int, duration: str | None = None) -> dict:
    runs = [measure(path, duration) for _ in range(repeat)]
    return min(runs, key=lambda r: r["wall_s"])


def row(name: str, r: dict) -> str:
    return (
        f"{name:<22} {r['wall_s']:>8.3f} {r['sim_s']:>6.0f} {r['events'] / r['wall_s'] / 1e6:>9.1f} "
        f"{r['packet_hops'] / r['wall_s'] / 1e6:>9.1f} {r['peak_mb']:>8.0f} {r['peak_mb'] - r['baseline_mb']:>8.1f} "
        f"{r['goodput_mbps']:>10.2f} {r['drops']:>8d} {r['build_s']:>8.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("names", nargs="*", help="scenario names (default: all)")
    parser.add_argument(
        "--repeat", type=int, default=1, help="runs per scenario; the fastest is shown"
    )
    parser.add_argument(
        "--no-memory-check", action="store_true", help="skip the double-duration run"
    )
    args = parser.parse_args()
    chosen = [p for p in SCENARIOS if not args.names or p.stem in args.names]
    if not chosen:
        parser.error(f"no such scenario; choose from: {', '.join(p.stem for p in SCENARIOS)}")
    print(
        f"{'scenario':<22} {'wall s':>8} {'sim s':>6} {'Mevent/s':>9} {'Mhop/s':>9} {'peak MB':>8} {'run MB':>8} {'goodput Mb/s':>10} {'drops':>8} {'build s':>8}"
    )
    for path in chosen:
        print(row(path.stem, best_of(path, args.repeat)), flush=True)
    first = SCENARIOS[0]
    if not args.no_memory_check and first in chosen:
        double = best_of(first, 1, "120s")
        print(row(first.stem + " x2 time", double))
        single = best_of(first, 1)
        grew = double["peak_mb"] - single["peak_mb"]
        print(f"memory check: twice the simulated time changed peak memory by {grew:+.1f} MB")


if __name__ == "__main__":
    main()
