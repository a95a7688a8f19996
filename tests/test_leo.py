"""The LEO path generator (ccsim.leo): handovers at their instants, draws within their ranges,
the same path for the same seed, and examples/leo.toml as examples/leo.py writes it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from ccsim.leo import as_overrides, leo_path
from ccsim.units import parse_rate, parse_time
from conftest import requires_engine, run_cli

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_handovers_stop_the_link_then_change_rate_and_delay_every_interval() -> None:
    keys = leo_path("60s", seed=3, interval="15s", phase="12s", outage="50ms")
    rates = [(parse_time(t), parse_rate(r) if r != 0 else 0) for t, r in keys["rate_schedule"]]
    delays = [(parse_time(t), parse_time(d)) for t, d in keys["delay_schedule"]]
    s, ms = 1_000_000_000, 1_000_000
    handovers = [12 * s, 27 * s, 42 * s, 57 * s]
    assert [t for t, r in rates if r == 0] == handovers
    assert [t for t, _ in rates if t > 0 and t not in handovers] == [h + 50 * ms for h in handovers]
    assert [t for t, _ in delays] == [0] + [h + 50 * ms for h in handovers]
    assert all(50_000_000 <= r <= 200_000_000 for _, r in rates if r > 0)
    assert all(10 * ms <= d <= 30 * ms for _, d in delays)
    assert "loss_schedule" not in keys


def test_the_same_seed_gives_the_same_path_and_another_seed_another() -> None:
    assert leo_path("60s", seed=5) == leo_path("60s", seed=5)
    assert leo_path("60s", seed=5) != leo_path("60s", seed=6)


def test_a_loss_burst_follows_each_outage_and_reverse_copies_the_path() -> None:
    keys = leo_path("20s", handover_loss=0.3, loss_burst="200ms", reverse=True)
    assert keys["loss_schedule"] == [["12.05s", 0.3], ["12.25s", 0.0]]
    assert keys["reverse_rate_schedule"] == keys["rate_schedule"]
    assert set(as_overrides(keys)) == {f"topology.{k}" for k in keys}


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"interval": "40ms"}, "not longer than the outage"),
        ({"handover_loss": 1.0}, "probability in [0, 1)"),
        ({"rate_range": ("200Mbps", "50Mbps")}, "low <= high"),
    ],
)
def test_impossible_paths_are_refused(kwargs: dict[str, object], fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment.replace("[", r"\[").replace(")", r"\)")):
        leo_path("60s", **kwargs)  # type: ignore[arg-type]


def test_the_example_file_is_what_its_generator_writes() -> None:
    spec = importlib.util.spec_from_file_location("leo_example", EXAMPLES / "leo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = (EXAMPLES / "leo.toml").read_text(encoding="utf-8")
    assert module.scenario_text(1, "60s") == written


@requires_engine
def test_the_example_runs(tmp_path: Path) -> None:
    result = run_cli(
        "run", EXAMPLES / "leo.toml", "--set", "duration=30s", "-o", tmp_path / "leo", cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert "bbr" in result.stdout and "cubic" in result.stdout
