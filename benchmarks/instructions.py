"""Instructions per event of the engine on reference scenarios, counted by callgrind: the steady
measure of the engine's cost on a machine whose wall clock moves by 10-30% from hour to hour.

    cargo build --profile profiling --example run_spec
    python benchmarks/instructions.py benchmarks/scenarios/e_dumbbell_1g_linux.toml --duration 2s
    python benchmarks/instructions.py e_dumbbell_1g_linux k_many_10_cubic_1g \\
        --duration 2s --set stack.recovery=rack-tlp --set stack.prr=rfc9937

Each scenario (a file, or a name in benchmarks/scenarios/) is resolved once with ccsim, with the
`--set` overrides applied (as `ccsim run --set` does), and run once under
`valgrind --tool=callgrind`. Printed per scenario: the instructions the process executed (the
engine's run, plus reading the JSON and a fixed start-up of about a million), the events and
packet-hops the run took, instructions per event and per hop, and the results digest (the same
for two configurations that must give byte-identical results). Counts repeat to the
instruction, so two configurations or two builds are compared by running this twice.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_BUILD = HERE.parent / "target" / "profiling" / "examples" / "run_spec"
COLLECTED = re.compile(r"Collected : (\d+)")
COUNTS = re.compile(r"(\d+) events, (\d+) packet-hops")
DIGEST = re.compile(r"digest (\w+), results (\w+)")


def scenario_path(name: str) -> Path:
    """A scenario file as given, or a reference scenario by its name (with or without .toml)."""
    given = Path(name)
    if given.is_file():
        return given
    reference = HERE / "scenarios" / f"{given.stem}.toml"
    if reference.is_file():
        return reference
    raise SystemExit(f"scenario: {name} is neither a file nor a name in {HERE / 'scenarios'}")


def resolved_spec(scenario: Path, overrides: dict[str, str], into: Path) -> Path:
    import ccsim  # resolving a scenario file needs the package; counting does not

    spec = into / f"{scenario.stem}.json"
    resolved = ccsim.Scenario.load(scenario, overrides=overrides).resolve()
    spec.write_text(json.dumps(resolved))
    return spec


def count(build: Path, spec: Path) -> tuple[int, int, int, str]:
    """Instructions, events, packet-hops and the results digest of one run of `spec`."""
    counted = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(build), str(spec)],
        capture_output=True,
        text=True,
        check=True,
    )
    collected = COLLECTED.search(counted.stderr)
    counts = COUNTS.search(counted.stdout)
    if collected is None or counts is None:
        raise SystemExit(f"{build}: unexpected output\n{counted.stdout}\n{counted.stderr}")
    digested = subprocess.run(
        [str(build), "--digest", str(spec)], capture_output=True, text=True, check=True
    ).stdout
    digest = DIGEST.search(digested)
    return (
        int(collected.group(1)),
        int(counts.group(1)),
        int(counts.group(2)),
        digest.group(2) if digest else "?",
    )


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("scenarios", nargs="+", help="scenario files or reference scenario names")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a key of every scenario (repeatable)",
    )
    parser.add_argument("--duration", help="override every scenario's duration, e.g. 2s")
    parser.add_argument(
        "--build",
        type=Path,
        default=DEFAULT_BUILD,
        help=f"run_spec build (default {DEFAULT_BUILD})",
    )
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed")
    if not args.build.is_file():
        parser.error(
            f"--build: {args.build} is not a file (cargo build --profile profiling "
            "--example run_spec)"
        )
    overrides: dict[str, str] = {}
    for item in args.set:
        key, sep, value = item.partition("=")
        if not sep or not key:
            parser.error(f"--set: {item!r} is not KEY=VALUE")
        overrides[key] = value
    if args.duration is not None:
        overrides["duration"] = args.duration
    print(
        f"{'scenario':28} {'instructions':>15} {'events':>11} {'hops':>11} "
        f"{'instr/event':>11} {'instr/hop':>9}  results"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.scenarios:
            scenario = scenario_path(name)
            spec = resolved_spec(scenario, overrides, Path(tmp))
            instructions, events, hops, digest = count(args.build, spec)
            print(
                f"{scenario.stem:28} {instructions:15,d} {events:11,d} {hops:11,d} "
                f"{instructions / max(events, 1):11.1f} {instructions / max(hops, 1):9.1f}  {digest}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
