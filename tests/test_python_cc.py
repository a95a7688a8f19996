"""Congestion control written in Python (ccsim.pycc): the tutorial's Reno gives the built-in
reno's tables byte for byte, hooks and parameters reach the class as documented, a failing hook
stops the run with the user's own traceback, and sweeps import the class by its path on local
and Dask workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ccsim
import numpy as np
import pytest
from ccsim.errors import ScenarioError
from ccsim.results import TABLES
from conftest import EXAMPLES, PACKAGE_PARENT, ROOT, SMALL_DUMBBELL, requires_engine, run_cli

pytestmark = [requires_engine, pytest.mark.usefixtures("python_cc_path")]

PY_RENO = "examples.python_cc.reno:Reno"


def column_bytes(values: Any) -> bytes | list[Any]:
    """A column as raw bytes (numbers: NaNs and signed zeros included), or its values (str)."""
    array = np.asarray(values)
    return list(array) if array.dtype == object else array.tobytes()


def assert_tables_identical(builtin: Any, python: Any, python_cc: str) -> None:
    """Every table of the two runs is equal byte for byte, but for the flows' cc column, which
    names each run's algorithm."""
    for name in TABLES:
        a, b = getattr(builtin, name), getattr(python, name)
        if name == "flows":
            assert set(a["cc"]) == {"reno"} and set(b["cc"]) == {python_cc}
            a, b = a.drop(columns=["cc"]), b.drop(columns=["cc"])
        assert list(a.columns) == list(b.columns), name
        assert len(a) == len(b), name
        for column in a.columns:
            assert column_bytes(a[column]) == column_bytes(b[column]), f"{name}.{column}"


# ---- the tutorial's Reno ------------------------------------------------------------------------

IDENTITY_CASES = {
    # examples/dumbbell.toml as it is (ns2: per-ACK counting, one RTT sample per round trip)
    "ns2": {},
    # the linux profile (byte counting with a slow-start cap, cwnd gating, SACK, every-ACK
    # RTTs), with series and drops traced
    "linux-traced": {
        "profile": "linux",
        "trace.sample_interval": "50ms",
        "trace.drops": True,
    },
}


@pytest.mark.parametrize("case", list(IDENTITY_CASES))
def test_python_reno_gives_the_builtin_renos_tables_byte_for_byte(case: str) -> None:
    base = ccsim.Scenario.load(EXAMPLES / "dumbbell.toml").with_overrides(IDENTITY_CASES[case])
    builtin = ccsim.run(base.with_overrides({"flows.0.cc": "reno", "flows.0.label": "reno"}))
    python = ccsim.run(base.with_overrides({"flows.0.cc": PY_RENO, "flows.0.label": "reno"}))
    assert builtin.flows["window_cuts"].sum() > 50  # losses, recoveries and timeouts happened
    if case == "linux-traced":
        assert len(builtin.series) > 1000 and len(builtin.drops) > 100
    assert_tables_identical(builtin, python, PY_RENO)


def test_rust_flows_run_as_before_beside_a_python_flow() -> None:
    """Mixed with CUBIC flows: the run equals the built-in Reno's, CUBIC's flows included."""
    base = ccsim.Scenario.load(EXAMPLES / "dumbbell.toml").with_overrides({"flows.0.count": 5})
    data = base.data()
    data["flows"].append({**data["flows"][0], "cc": "cubic"})
    mixed = ccsim.Scenario.model_validate(data)
    builtin = ccsim.run(mixed.with_overrides({"flows.0.cc": "reno", "flows.0.label": "reno"}))
    python = ccsim.run(mixed.with_overrides({"flows.0.cc": PY_RENO, "flows.0.label": "reno"}))
    assert list(python.flows["cc"]) == [PY_RENO] * 5 + ["cubic"] * 5
    python.flows.loc[:4, "cc"] = "reno"
    builtin_tables = {n: getattr(builtin, n) for n in TABLES}
    for name, table in builtin_tables.items():
        other = getattr(python, name)
        for column in table.columns:
            assert column_bytes(table[column]) == column_bytes(other[column]), f"{name}.{column}"


def test_registered_name_runs_the_class() -> None:
    from examples.python_cc.reno import Reno

    ccsim.register_cc("pyreno", Reno)
    scenario = ccsim.Scenario.load(EXAMPLES / "dumbbell.toml").with_overrides(
        {"duration": "3s", "flows.0.label": "x"}
    )
    by_name = ccsim.run(scenario.with_overrides({"flows.0.cc": "pyreno"}))
    by_path = ccsim.run(scenario.with_overrides({"flows.0.cc": PY_RENO}))
    assert set(by_name.flows["cc"]) == {"pyreno"}
    assert by_name.flows.drop(columns=["cc"]).equals(by_path.flows.drop(columns=["cc"]))
    with pytest.raises(ValueError, match='"cubic" is a built-in algorithm'):
        ccsim.register_cc("cubic", Reno)
    with pytest.raises(ValueError, match="not a valid algorithm name"):
        ccsim.register_cc("a:b", Reno)
    with pytest.raises(TypeError, match=r"not a subclass of ccsim\.CongestionControl"):
        ccsim.register_cc("thing", dict)  # type: ignore[arg-type]


# ---- what the hooks receive --------------------------------------------------------------------

RECORDER = """
import ccsim
from examples.python_cc.reno import Reno

class Recorder(Reno):
    seen: dict = {}

    def __init__(self, count: int = 3, gain: float = 1.0, fast: bool = False) -> None:
        super().__init__()
        Recorder.seen["params"] = (count, gain, fast)
        self.acks = 0

    def on_ack(self, ack):
        self.acks += 1
        if self.acks == 50:
            Recorder.seen["ack"] = (ack.now, ack.acked, ack.srtt, ack.delay.base, ack.delay.round.count,
                                    ack.growth.gating, repr(ack))
        super().on_ack(ack)

    def on_congestion(self, event):
        Recorder.seen.setdefault("kinds", set()).add(event.kind)
        super().on_congestion(event)

    def on_sent(self, sent):
        Recorder.seen["sent"] = Recorder.seen.get("sent", 0) + 1

    def on_dupack(self, now):
        Recorder.seen["dupacks"] = Recorder.seen.get("dupacks", 0) + 1

    def inspect(self, now):
        return {"acks": float(self.acks), "gain": 2.0}
"""


def test_hooks_and_parameters_reach_the_class(module: Callable[[str], str]) -> None:
    name = module(RECORDER)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {
            "flows.0.cc": f"{name}:Recorder",
            "flows.0.params": {"count": 7, "gain": 2, "fast": True},
            "trace.sample_interval": "100ms",
        }
    )
    results = ccsim.run(scenario)
    seen = sys.modules[name].Recorder.seen
    count, gain, fast = seen["params"]
    # the scenario's types, not the engine's floats
    assert (count, gain, fast) == (7, 2, True) and type(count) is int and type(fast) is bool
    now, acked, srtt, base, round_count, gating, shown = seen["ack"]
    assert now > 0 and acked >= 1 and srtt > 0 and base > 0 and round_count >= 1
    assert gating is False and shown.startswith("AckSample(now=")
    assert seen["sent"] > 100 and seen["dupacks"] > 0 and "loss" in seen["kinds"]
    series = results.series
    python_rows = series[series["flow"] < 2]
    assert (python_rows["cc_gain"] == 2.0).all() and python_rows["cc_acks"].iloc[-1] > 50
    assert series[series["flow"] == 2]["cc_acks"].isna().all()  # the built-in reno flow


PACER = """
from examples.python_cc.reno import Reno

class Pacer(Reno):
    # Reno's window, but at most one segment per 20 ms: pacing alone, no on_sent.

    def __init__(self):
        super().__init__()
        self.next_free = 0

    def next_send_time(self, ctx):
        if ctx.now < self.next_free:
            return self.next_free
        self.next_free = ctx.now + 20_000_000
        return None
"""


def test_a_class_that_only_paces_holds_segments_back(module: Callable[[str], str]) -> None:
    # The engine calls the pacing hook only for algorithms that override it: a class that
    # overrides next_send_time alone must still be asked.
    name = module(PACER)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL)
    paced = ccsim.run(scenario.with_overrides({"flows.0.cc": f"{name}:Pacer"})).flows
    free = ccsim.run(scenario).flows
    # 2 s at one segment per 20 ms (plus the first segment's slack).
    assert paced.loc[0, "packets_sent"] <= 2.0 / 0.020 + 2
    assert free.loc[0, "packets_sent"] > 3 * paced.loc[0, "packets_sent"]


def test_parameters_are_checked_against_the_constructor(module: Callable[[str], str]) -> None:
    name = module(RECORDER)
    base = ccsim.Scenario.from_toml(SMALL_DUMBBELL)
    with pytest.raises(ScenarioError) as caught:
        base.with_overrides({"flows.0.cc": f"{name}:Recorder", "flows.0.params": {"cnt": 1}})
    assert str(caught.value) == (
        f'flows[0].params.cnt: {name}:Recorder has no parameter "cnt"; '
        "expected one of: count, gain, fast"
    )


@pytest.mark.parametrize(
    ("cc", "message"),
    [
        (
            "no_such_module_xyz:Cc",
            'flows[1].cc: cannot import "no_such_module_xyz:Cc": No module named',
        ),
        ("examples.python_cc.reno:Nope", "module examples.python_cc.reno has no attribute Nope"),
        ("examples.python_cc.reno:MIN_SSTHRESH", "is not a subclass of ccsim.CongestionControl"),
        ("a:b:c", '"a:b:c" is not an import path; expected "package.module:ClassName"'),
    ],
)
def test_a_path_that_does_not_name_a_class_is_bad_input(cc: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides({"flows.1.cc": cc})
    assert message in str(caught.value)
    assert str(caught.value).startswith("flows[1].cc: ")


# ---- failures ----------------------------------------------------------------------------------

FAILING = """
from examples.python_cc.reno import Reno

class Failing(Reno):
    def __init__(self, after: int = 200) -> None:
        super().__init__()
        self.after = after
        self.acks = 0

    def on_ack(self, ack):
        self.acks += 1
        if self.acks > self.after:
            raise ZeroDivisionError("the user's own error")  # FAILS HERE
        super().on_ack(ack)

class Interrupted(Reno):
    def on_congestion(self, event):
        raise KeyboardInterrupt

class BadWindow(Reno):
    def on_ack(self, ack):
        self.cwnd = float("nan")

class BadInit(Reno):
    def __init__(self) -> None:
        raise ValueError("no window for you")  # INIT FAILS HERE
"""


def line_of(source: str, marker: str) -> int:
    return next(
        i for i, line in enumerate(textwrap.dedent(source).splitlines(), 1) if marker in line
    )


def test_an_exception_in_a_hook_stops_the_run_with_the_users_traceback(
    module: Callable[[str], str], tmp_path: Path
) -> None:
    name = module(FAILING)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"flows.0.cc": f"{name}:Failing"}
    )
    with pytest.raises(ccsim.CongestionControlError) as caught:
        ccsim.run(scenario)
    error = caught.value
    assert str(error).startswith(f'on_ack of "{name}:Failing" (flow labelled "{name}:Failing", at ')
    assert str(error).endswith("raised ZeroDivisionError: the user's own error")
    cause = error.__cause__
    assert isinstance(cause, ZeroDivisionError)
    last = traceback.extract_tb(cause.__traceback__)[-1]
    assert Path(last.filename) == tmp_path / f"{name}.py"
    assert last.lineno == line_of(FAILING, "FAILS HERE") and last.name == "on_ack"


def test_the_command_line_prints_the_traceback_and_writes_nothing(
    module: Callable[[str], str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = module(FAILING)  # found in the current directory; its base class on PYTHONPATH
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    (tmp_path / "s.toml").write_text(
        SMALL_DUMBBELL.replace('cc = "newreno"', f'cc = "{name}:Failing"'), encoding="utf-8"
    )
    result = run_cli("run", "s.toml", "--out", "out", "--quiet", cwd=tmp_path)
    assert result.returncode == 1
    where = f'File "{tmp_path / name}.py", line {line_of(FAILING, "FAILS HERE")}, in on_ack'
    assert where in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("error: CongestionControlError: on_ack of"), last
    assert "ccsim/cli/" not in result.stderr, "only the user's frames are printed"
    assert "panic" not in result.stderr.lower()
    assert not (tmp_path / "out").exists()


ECN_AWARE = """
    import ccsim


    class HalfOnMark(ccsim.CongestionControl):
        \"\"\"Reno growth; halves on loss and on the sender's ECN reduction.\"\"\"

        needs_ecn = True
        marked_acks = 0
        kinds: list[str] = []

        def on_ack_in_recovery(self, ack):
            if ack.ece:
                type(self).marked_acks += 1

        def on_ack(self, ack):
            assert not ack.ece, "an ACK echoing a mark never grows the window"
            if self.cwnd < self.ssthresh:
                self.cwnd += ack.increase_units
            else:
                self.cwnd += ack.increase_units / self.cwnd

        def on_congestion(self, event):
            type(self).kinds.append(event.kind)
            self.ssthresh = max(self.cwnd / 2, 2.0)
            self.cwnd = self.ssthresh
"""


def test_a_python_algorithm_can_need_ecn_and_sees_the_marks(
    module: Callable[[str], str],
) -> None:
    """needs_ecn makes the flows ECN-capable under a stack without ECN; through a step-marking
    queue the ACKs echo the marks (ack.ece, seen by on_ack_in_recovery: such an ACK never grows
    the window) and the sender reduces with kind "ecn", without the queue dropping anything."""
    name = module(ECN_AWARE)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {
            "flows.0.cc": f"{name}:HalfOnMark",
            "flows.1.cc": f"{name}:HalfOnMark",
            "topology.queue": "step",
            "topology.step": {"k": "5pkts"},
            "duration": "5s",
        }
    )
    results = ccsim.run(scenario)
    cls = sys.modules[name].HalfOnMark
    assert cls.marked_acks > 0
    assert "ecn" in cls.kinds and "loss" not in cls.kinds
    assert results.flows["drops"].iloc[:2].sum() == 0


def test_a_failing_constructor_stops_the_build(
    module: Callable[[str], str], tmp_path: Path
) -> None:
    name = module(FAILING)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"flows.0.cc": f"{name}:BadInit"}
    )
    with pytest.raises(ccsim.CongestionControlError, match="the constructor of") as caught:
        ccsim.run(scenario)
    last = traceback.extract_tb(caught.value.__cause__.__traceback__)[-1]
    assert (Path(last.filename), last.lineno) == (
        tmp_path / f"{name}.py",
        line_of(FAILING, "INIT FAILS HERE"),
    )


def test_a_window_that_is_not_a_window_stops_the_run(module: Callable[[str], str]) -> None:
    name = module(FAILING)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"flows.0.cc": f"{name}:BadWindow"}
    )
    with pytest.raises(ccsim.CongestionControlError, match="cwnd = NaN: expected a finite"):
        ccsim.run(scenario)


@pytest.mark.usefixtures("ctrl_c_reaches_this_thread")
def test_ctrl_c_inside_a_hook_is_a_keyboard_interrupt(module: Callable[[str], str]) -> None:
    name = module(FAILING)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"flows.0.cc": f"{name}:Interrupted"}
    )
    with pytest.raises(KeyboardInterrupt):
        ccsim.run(scenario)


# ---- sweeps ------------------------------------------------------------------------------------

SWEEP = """
name = "pysweep"
[axes]
"flows.0.cc" = ["reno", "{path}"]
"""


def sweep_flows(result: Any) -> Any:
    return result.query("SELECT cc, seed, flow, goodput_bps, drops FROM flows ORDER BY ALL")


def test_sweep_on_local_workers_imports_the_class_by_its_path(
    write_sweep: Callable[..., Path], tmp_path: Path
) -> None:
    from examples.python_cc.reno import Reno

    ccsim.register_cc("pyreno-registered", Reno)
    path = write_sweep(SWEEP.format(path=f'{PY_RENO}", "pyreno-registered'))
    result = ccsim.sweep(path, tmp_path / "out", workers=2)
    assert result.ok and result.completed == 3
    flows = sweep_flows(result)
    by_cc = {
        cc: group.drop(columns=["cc"]).reset_index(drop=True) for cc, group in flows.groupby("cc")
    }
    assert set(by_cc) == {"reno", PY_RENO, "pyreno-registered"}
    assert by_cc["reno"].equals(by_cc[PY_RENO]) and by_cc["reno"].equals(by_cc["pyreno-registered"])


def test_a_worker_that_cannot_import_the_class_says_which_flow_and_path(
    write_sweep: Callable[..., Path], tmp_path: Path
) -> None:
    # A class this process has (its module was made here, not imported from a file) and a worker
    # process cannot import.
    made_here = types.ModuleType("made_here_only")
    exec("from examples.python_cc.reno import Reno\nclass Here(Reno): pass", made_here.__dict__)
    sys.modules["made_here_only"] = made_here
    try:
        ccsim.register_cc("here-only", made_here.Here)
        path = write_sweep('name = "lost"\n[axes]\n"flows.0.cc" = ["reno", "here-only"]\n')
        result = ccsim.sweep(path, tmp_path / "out", workers=2)
    finally:
        del sys.modules["made_here_only"]
    assert result.completed == 1 and len(result.failures) == 1
    error = result.failures[0].error
    assert error.startswith(
        'flows[0].cc: cannot import "here-only" (registered as "made_here_only:Here")'
    )
    assert "No module named 'made_here_only'" in error


def test_sweep_on_a_dask_cluster_of_processes(
    write_sweep: Callable[..., Path], tmp_path: Path
) -> None:
    distributed = pytest.importorskip("distributed")
    path = write_sweep(SWEEP.format(path=PY_RENO))
    local = ccsim.sweep(path, tmp_path / "local", workers=1)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        result = ccsim.sweep(path, tmp_path / "dask", scheduler=cluster.scheduler_address)
    assert result.ok and result.completed == 2
    assert sweep_flows(result).equals(sweep_flows(local))
    flows = sweep_flows(result)
    assert set(flows["cc"]) == {"reno", PY_RENO}


def test_the_tutorials_sweep_compares_delay_reno_with_cubic() -> None:
    sweep = ccsim.Sweep.load(EXAMPLES / "python_cc" / "sweep_delay_vs_cubic.toml")
    points = sweep.points()
    assert len(points) == 36  # 4 buffers x (cubic, delay-reno, the reno reference) x 3 seeds
    ccs = {p.scenario.flows[0].cc for p in points}
    assert ccs == {"cubic", "reno", "examples.python_cc.delay_reno:DelayReno"}
    # one run of it: the delay threshold keeps the queue short where CUBIC fills it
    by_cc = {
        p.scenario.flows[0].cc: p.scenario.with_overrides({"duration": "10s"})
        for p in points
        if p.params.get("buffer") == "4bdp" and p.scenario.seed == 1
    }
    rtt = {cc: ccsim.run(s).flows["mean_rtt_s"].mean() for cc, s in by_cc.items()}
    assert rtt["examples.python_cc.delay_reno:DelayReno"] < 0.04 < 0.06 < rtt["cubic"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX signals")
def test_ctrl_c_stops_a_run_with_a_python_algorithm_promptly(tmp_path: Path) -> None:
    """SIGINT while the engine holds the GIL for a Python algorithm: the command stops within a
    second or so, says it was interrupted, and writes nothing."""
    # A day at 100 Mb/s: hours of work for the Python algorithm, however fast the machine. The
    # algorithm says when the engine has built it, so that the signal reaches a run under way
    # (on a loaded machine importing and loading can take seconds).
    long_run = (
        SMALL_DUMBBELL.replace('duration = "2s"', 'duration = "86400s"')
        .replace('bottleneck_rate = "10Mbps"', 'bottleneck_rate = "100Mbps"')
        .replace('cc = "newreno"', 'cc = "started_reno:StartedReno"')
    )
    (tmp_path / "long.toml").write_text(long_run, encoding="utf-8")
    started = tmp_path / "started"
    (tmp_path / "started_reno.py").write_text(
        textwrap.dedent(f"""
            from pathlib import Path
            from examples.python_cc.reno import Reno

            class StartedReno(Reno):
                def __init__(self, alpha: float = 1.0, beta: float = 0.5) -> None:
                    super().__init__(alpha, beta)
                    Path({str(started)!r}).touch()
        """),
        encoding="utf-8",
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_PARENT), str(ROOT), str(tmp_path)])
    process = subprocess.Popen(
        [sys.executable, "-m", "ccsim", "run", "long.toml", "--out", "out", "-q"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        time.sleep(0.5)  # the run is under way
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, stderr = process.communicate(timeout=30)
        assert time.monotonic() - sent < 5
    finally:
        # Whatever failed above, leave no process running and no pipe open.
        if process.poll() is None:
            process.kill()
        if process.stderr is not None and not process.stderr.closed:
            process.communicate()
    assert process.returncode == 130, stderr
    assert "interrupted; nothing was written" in stderr and "Traceback" not in stderr
    assert not (tmp_path / "out").exists()


# ---- the window before the first ACK -------------------------------------------------------------

WATCHER = """
from examples.python_cc.reno import Reno

class Watcher(Reno):
    # Reads the window in the hooks that may run before the first ACK.
    first_sent = None

    def on_sent(self, sent):
        if type(self).first_sent is None:
            type(self).first_sent = (self.cwnd, self.ssthresh)

    def inspect(self, now):
        return {"cwnd": self.cwnd, "ssthresh": self.ssthresh}
"""


@pytest.mark.parametrize(
    ("overrides", "opening"),
    [
        ({}, (2.0, 1_000_000.0)),  # ns2: ssthresh is the receiver window
        ({"flows.0.max_window": 64}, (2.0, 64.0)),
        ({"profile": "linux"}, (10.0, float("inf"))),
        ({"profile": "rfc", "flows.0.mss": 1500}, (3.0, float("inf"))),  # RFC 5681 on the MSS
        ({"profile": "rfc", "stack.initial_window": 7}, (7.0, float("inf"))),
    ],
)
def test_hooks_before_the_first_ack_see_the_window_the_flow_opens_with(
    module: Callable[[str], str], overrides: dict[str, Any], opening: tuple[float, float]
) -> None:
    name = module(WATCHER)
    scenario = ccsim.Scenario.from_toml(SMALL_DUMBBELL).with_overrides(
        {"flows.0.cc": f"{name}:Watcher", "flows.0.count": 1, "trace.sample_interval": "1ms"}
        | overrides
    )
    series = ccsim.run(scenario).series
    rows = series[series["flow"] == 0].reset_index(drop=True)
    # The first sample is taken when the flow starts, before any ACK can have arrived.
    assert (rows.loc[0, "cc_cwnd"], rows.loc[0, "cc_ssthresh"]) == opening
    assert sys.modules[name].Watcher.first_sent == opening
    # Once the connection is open (after the handshake, where there is one) and until the
    # first ACK, the sender's window is that one too.
    opened = rows[rows["cwnd_pkts"] == opening[0]].iloc[0]
    assert opened["ssthresh_pkts"] == opening[1]


# ---- modules beside the scenario file ------------------------------------------------------------

BESIDE = """
from examples.python_cc.reno import Reno
from {helper} import WHERE

class Beside(Reno):
    where = WHERE
"""


def write_beside(directory: Path, module: str, where: str) -> None:
    """``module`` (class Beside) and the helper it imports, which says which copy was read."""
    directory.mkdir(exist_ok=True)
    helper = f"{module}_helper"
    (directory / f"{helper}.py").write_text(f"WHERE = {where!r}\n", encoding="utf-8")
    (directory / f"{module}.py").write_text(BESIDE.format(helper=helper), encoding="utf-8")


def scenario_with(cc: str) -> str:
    return SMALL_DUMBBELL.replace('cc = "newreno"', f'cc = "{cc}"', 1)


def test_a_module_beside_the_scenario_file_is_found_from_another_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = f"beside_{os.getpid()}_a"
    here = tmp_path / "scenarios"  # not on sys.path (tmp_path is)
    write_beside(here, name, "scenarios")
    (here / "s.toml").write_text(scenario_with(f"{name}:Beside"), encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    scenario = ccsim.Scenario.load(here / "s.toml")
    assert sys.modules[name].Beside.where == "scenarios"  # its own import of a neighbour works
    flows = ccsim.run(scenario).flows
    assert list(flows["cc"]) == [f"{name}:Beside", f"{name}:Beside", "reno"]
    # A copy with overrides looks there too, for a module not read yet.
    other = f"beside_{os.getpid()}_b"
    write_beside(here, other, "scenarios")
    changed = scenario.with_overrides({"flows.1.cc": f"{other}:Beside"})
    assert changed.flows[1].cc == f"{other}:Beside" and changed.directory == here


def test_sys_path_comes_before_the_scenario_files_directory(tmp_path: Path) -> None:
    name = f"beside_{os.getpid()}_c"
    write_beside(tmp_path, name, "sys.path")  # tmp_path is on sys.path
    write_beside(tmp_path / "scenarios", name, "scenarios")
    (tmp_path / "scenarios" / "s.toml").write_text(scenario_with(f"{name}:Beside"), "utf-8")
    ccsim.Scenario.load(tmp_path / "scenarios" / "s.toml")
    assert sys.modules[name].Beside.where == "sys.path"


def test_a_module_found_nowhere_says_where_it_was_looked_for(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(scenario_with("nowhere_at_all_xyz:Cc"), encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        ccsim.Scenario.load(tmp_path / "s.toml")
    assert str(caught.value).startswith('flows[0].cc: cannot import "nowhere_at_all_xyz:Cc"')
    assert "beside the scenario file" in str(caught.value)


def test_sweep_workers_find_a_module_beside_the_scenario_file(tmp_path: Path) -> None:
    name = f"beside_{os.getpid()}_d"
    here = tmp_path / "scenarios"
    write_beside(here, name, "scenarios")
    (here / "base.toml").write_text(SMALL_DUMBBELL, encoding="utf-8")
    sweep = here / "sweep.toml"
    sweep.write_text(
        f'scenario = "base.toml"\n{SWEEP.format(path=f"{name}:Beside")}', encoding="utf-8"
    )
    result = ccsim.sweep(sweep, tmp_path / "out", workers=2)
    assert result.ok and result.completed == 2, [f.error for f in result.failures]
    flows = sweep_flows(result)
    assert set(flows["cc"]) == {"reno", f"{name}:Beside"}


def test_parameters_left_for_a_python_algorithm_say_whose_they_are() -> None:
    cubic = SMALL_DUMBBELL.replace('cc = "newreno"', 'cc = "cubic"\nparams = { c = 0.5 }', 1)
    with pytest.raises(ScenarioError) as caught:
        ccsim.Scenario.from_toml(cubic).with_overrides({"flows.0.cc": PY_RENO})
    assert caught.value.path == ("flows", 0, "params", "c")
    assert caught.value.detail.startswith(
        f'"c" is a parameter of cubic, kept when flows.0.cc was set to {PY_RENO}, which has no '
        'parameter "c" (it takes alpha, beta)'
    )


@requires_engine
@pytest.mark.parametrize(
    "name", ["AckSample", "RateSample", "CongestionEvent", "SentSample", "PacingContext"]
)
def test_every_field_a_hook_reads_says_what_it_holds_in_help(name: str) -> None:
    from ccsim import _core

    kind = getattr(_core, name)
    fields = [n for n, v in vars(kind).items() if not n.startswith("_") and hasattr(v, "__get__")]
    assert fields
    # help(ccsim.AckSample) shows these; the stubs (_core.pyi) hold the same text for editors.
    undocumented = [f for f in fields if not (getattr(kind, f).__doc__ or "").strip()]
    assert not undocumented, undocumented
