"""Hostile input, generated: the scenario loader, the engine's own checks and the CLI must answer
any value at any key with a clean result or one ScenarioError naming a key, never a traceback, a
hang, an abort or an engine crash."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest
from ccsim.cli import main
from ccsim.errors import ScenarioError
from ccsim.scenario import Scenario
from conftest import HAVE_ENGINE, SMALL_DUMBBELL, requires_engine
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Each example must answer well within this (seconds): a hang shows up as a failure, not a
# stuck suite.
PER_EXAMPLE_S = 5.0

# Key paths of the small dumbbell (and keys it could have), as --set writes them.
KEYS = [
    "name", "seed", "duration", "profile",
    "topology.kind", "topology.bottleneck_rate", "topology.bottleneck_delay",
    "topology.access_rate", "topology.buffer", "topology.queue", "topology.loss",
    "topology.reverse_loss", "topology.access_buffer", "topology.bdp_rtt", "topology.jitter",
    "topology.red.min_th", "topology.red.max_th", "topology.red.max_p", "topology.red.w_q",
    "flows.0.cc", "flows.0.count", "flows.0.rtt", "flows.0.start", "flows.0.start_jitter",
    "flows.0.size", "flows.0.mss", "flows.0.max_window", "flows.0.delayed_ack",
    "flows.0.params.beta", "flows.1.size", "flows.1.label",
    "stack.initial_window", "stack.min_rto", "stack.initial_rto", "stack.max_rto",
    "stack.max_backoff", "stack.clock_granularity", "stack.dupack_threshold",
    "stack.default_max_window", "stack.slow_start_cap", "stack.delayed_ack_timeout",
    "stack.send_overhead", "stack.sack", "stack.handshake", "stack.ssthresh_basis",
    "trace.sample_interval", "trace.drops",
    "limits.flows", "limits.transfers", "limits.buffer_pkts", "limits.samples",
]  # fmt: skip

NUMBERS = ["0", "1", "-1", "2", "1e300", "-1e300", "0.5", "4294967295", "18446744073709551615",
           "18446744073709551616", "9223372036854775807", "1000000", "1e-300"]  # fmt: skip
MAGNITUDES = ["0", "-1", "1", "1.5", "1e30", "1e5000", "1e999999999", "1e-999999999",
              "18446744073709551615", "9.3e18", "0.000000001"]  # fmt: skip
UNITS = ["s", "ms", "ns", "min", "pkts", "bdp", "B", "KB", "GiB", "bps", "Mbps", "Gbps", ""]
WORDS = ["inf", "nan", "true", "red", "droptail", "reno", "linux", "", "[]", "{}", "[1, 2]",
         '{ dist = "pareto", mean = "1KB", shape = 1.0 }', '"1ms"', "[[[[[[[[1]]]]]]]]",
         "[" * 300 + "]" * 300, "{a={b={c={d={e={f={g={h=1}}}}}}}}"]  # fmt: skip

values = st.one_of(
    st.sampled_from(NUMBERS),
    st.builds(lambda m, u: m + u, st.sampled_from(MAGNITUDES), st.sampled_from(UNITS)),
    st.sampled_from(WORDS),
)
overrides = st.dictionaries(st.sampled_from(KEYS), values, min_size=1, max_size=3)


def base() -> Scenario:
    # A short run: what passes the checks is also run, and must finish.
    return Scenario.from_toml(SMALL_DUMBBELL).with_overrides({"duration": "200ms"})


def check_answer(changes: dict[str, str]) -> None:
    """Load with ``changes``; whatever loads must build in the engine, and run to the end."""
    started = time.monotonic()
    try:
        scenario = base().with_overrides(changes)
    except ScenarioError as error:
        message = str(error)
        assert message and "\n" not in message and "Traceback" not in message
        return
    finally:
        assert time.monotonic() - started < PER_EXAMPLE_S, f"validation took too long: {changes}"
    spec = json.dumps(scenario.resolve())
    if not HAVE_ENGINE:
        return
    from ccsim import _core

    try:
        simulation = _core.Simulation(spec)
    except ValueError:
        return  # the engine refused it, with a message (a RuntimeError would be a crash)
    if scenario.duration > 10**9 or scenario.flow_count > 50:
        return  # valid but long: running it proves nothing here
    simulation.advance(scenario.duration)
    output = simulation.finish()
    assert output["stats"]["sim_end_ns"] <= scenario.duration
    assert time.monotonic() - started < 4 * PER_EXAMPLE_S, f"the run took too long: {changes}"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(overrides)
def test_any_override_is_answered_cleanly(changes: dict[str, str]) -> None:
    check_answer(changes)


# Raw text: the file as a hostile user could mangle it.
LINES = SMALL_DUMBBELL.strip().splitlines()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, len(LINES) - 1), st.sampled_from(["drop", "dup", "value"]), values
        ),
        min_size=1,
        max_size=4,
    )
)
def test_mangled_files_are_answered_cleanly(edits: list[tuple[int, str, str]]) -> None:
    lines = list(LINES)
    for index, action, value in edits:
        index %= len(lines)
        if action == "drop":
            del lines[index]
        elif action == "dup":
            lines.insert(index, lines[index])
        elif "=" in lines[index]:
            key = lines[index].split("=", 1)[0]
            lines[index] = f"{key}= {value}"
        if not lines:
            return
    started = time.monotonic()
    try:
        scenario = Scenario.from_toml("\n".join(lines), name="fuzz")
        json.dumps(scenario.resolve())
    except ScenarioError as error:
        assert "\n" not in str(error)
    assert time.monotonic() - started < PER_EXAMPLE_S


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(changes=overrides)
def test_the_cli_answers_with_status_0_or_2(
    changes: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_DUMBBELL, encoding="utf-8")
    args = ["validate", str(path)]
    for key, value in changes.items():
        args += ["--set", f"{key}={value}"]
    capsys.readouterr()
    with pytest.raises(SystemExit) as caught:
        main(args)
    out, err = capsys.readouterr()
    assert caught.value.code in (0, 2), err
    if caught.value.code == 2:
        assert err.startswith("error: ") and err.count("\n") == 1, err
        assert "Traceback" not in err
    else:
        assert out.startswith("ok: ")


@requires_engine
@pytest.mark.parametrize(
    "changes",
    [
        {"stack.max_rto": "0s"},
        {"stack.min_rto": "0s", "stack.initial_rto": "0s"},
        {"stack.max_rto": "1ms"},
        {"flows.0.count": "1000000"},
        {"topology.buffer": "1e5000pkts"},
        {"topology.buffer": "1e999999999pkts"},
        {"topology.buffer": "1e30pkts"},
        {"duration": "18446744073s", "flows.0.start": "18446744072s"},
        {"stack.initial_window": "-1"},
        {"stack.dupack_threshold": "0"},
        {"topology.loss": "2"},
        {"topology.bottleneck_delay": "9223372036s"},
    ],
)
def test_the_reported_inputs_are_refused(changes: dict[str, str]) -> None:
    with pytest.raises(ScenarioError) as caught:
        base().with_overrides(changes)
    assert str(caught.value).split(":")[0] in {key.replace(".0.", "[0].") for key in changes}, (
        caught.value
    )
    assert not math.isnan(len(str(caught.value)))
