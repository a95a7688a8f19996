"""Write examples/leo.toml: a CUBIC and a BBR flow over a low-earth-orbit path whose rate and
delay change at a satellite handover every 15 s, with a 50 ms outage at each (ccsim.leo).

    python3 examples/leo.py                  # rewrite examples/leo.toml (seed 1, 60 s)
    python3 examples/leo.py --seed 7 --print # another path, printed instead
    ccsim run examples/leo.toml
    ccsim plot results/leo --kind throughput # the capacity steps under the flows' rates

From Python, the same path as overrides of any dumbbell scenario:

    from ccsim.leo import as_overrides, leo_path
    scenario = ccsim.Scenario.load("examples/dumbbell.toml").with_overrides(
        as_overrides(leo_path("60s", seed=7)))
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ccsim.leo import leo_path

HEADER = """\
# A CUBIC and a BBR flow over a low-earth-orbit path (written by examples/leo.py, seed {seed}:
# edit that, not this). At every satellite handover, 15 s apart from 12 s on, the bottleneck stops
# for 50 ms, then runs at a new rate (50-200 Mb/s) with a new one-way delay (10-30 ms, so a base
# RTT of 30-70 ms with the 10 ms of access links); ccsim/leo.py says where the numbers come from.
#
#   ccsim run examples/leo.toml
#   ccsim plot results/leo --kind throughput

name = "leo"
seed = 1
duration = "{duration}"
profile = "linux"

[topology]
kind = "dumbbell"
bottleneck_rate = "200Mbps"    # sizes the buffer; the schedule sets the rate
bottleneck_delay = "10ms"      # the schedule sets the delay from 0 s
buffer = "1bdp"
bdp_rtt = "50ms"
"""

FLOWS = """
[[flows]]
cc = "cubic"
rtt = "30ms"

[[flows]]
cc = "bbr"
rtt = "30ms"

[trace]
sample_interval = "100ms"
"""


def toml_value(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def scenario_text(seed: int, duration: str) -> str:
    keys = leo_path(duration, seed=seed)
    lines = [f"{k} = {toml_value(v)}" for k, v in keys.items()]
    return HEADER.format(seed=seed, duration=duration) + "\n".join(lines) + "\n" + FLOWS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="the path's seed (default 1)")
    parser.add_argument("--duration", default="60s", help='run length (default "60s")')
    parser.add_argument("--print", action="store_true", help="print instead of writing the file")
    args = parser.parse_args()
    text = scenario_text(args.seed, args.duration)
    if args.print:
        print(text, end="")
    else:
        (Path(__file__).parent / "leo.toml").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
