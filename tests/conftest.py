"""Shared fixtures: the package path, the engine's availability, a stand-in algorithm registry,
small scenarios, and a helper that runs ``python -m ccsim`` in a subprocess."""

from __future__ import annotations

import importlib.util
import itertools
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# Use the source tree when ccsim is not installed (e.g. after `maturin develop` or with only the
# pure-Python parts present).
if importlib.util.find_spec("ccsim") is None:
    sys.path.insert(0, str(ROOT / "python"))

import ccsim  # noqa: E402
from ccsim.runner import CHECK_INVARIANTS_ENV  # noqa: E402

# Every run the suite makes, in this process or in sweep workers, checks packet conservation.
os.environ[CHECK_INVARIANTS_ENV] = "1"
import ccsim.scenario.engine  # noqa: E402

PACKAGE_PARENT = Path(ccsim.__file__).resolve().parent.parent
HAVE_ENGINE = importlib.util.find_spec("ccsim._core") is not None

requires_engine = pytest.mark.skipif(
    not HAVE_ENGINE, reason="ccsim._core (the engine) is not built"
)

# A registry shaped like _core.algorithms(), so schema tests do not depend on the engine being
# built or on which algorithms it has today.
FAKE_ALGORITHMS: dict[str, dict[str, Any]] = {
    "newreno": {
        "name": "newreno",
        "summary": "NewReno",
        "recovery": "newreno",
        "params": [
            {"name": "beta", "kind": "float", "default": 0.5, "min": 0.01, "max": 0.99, "doc": ""},
        ],
    },
    "reno": {"name": "reno", "summary": "Reno", "recovery": "reno", "params": []},
    "cubic": {
        "name": "cubic",
        "summary": "CUBIC",
        "recovery": "newreno",
        "params": [
            {"name": "beta", "kind": "float", "default": 0.7, "min": 0.01, "max": 0.99, "doc": ""},
            {"name": "fast_convergence", "kind": "bool", "default": 1.0, "doc": ""},
            {"name": "hystart_low_window", "kind": "int", "default": 16.0, "doc": ""},
        ],
    },
}


@pytest.fixture
def fake_registry(monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, Any]]:
    """Check algorithm names and parameters against FAKE_ALGORITHMS instead of the engine."""
    monkeypatch.setattr(ccsim.scenario.engine, "algorithm_registry", lambda: FAKE_ALGORITHMS)
    return FAKE_ALGORITHMS


# A dumbbell that the engine runs in a fraction of a second.
SMALL_DUMBBELL = """
name = "small"
seed = 5
duration = "2s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
buffer = "1bdp"

[[flows]]
cc = "newreno"
count = 2
rtt = "40ms"
start_jitter = "100ms"

[[flows]]
cc = "reno"
rtt = "80ms"
size = "30KB"
"""

# Two islands: a-b and c-d. A flow from a to c has no route; only the engine can tell.
UNCONNECTED_EXPLICIT = """
name = "islands"
duration = "1s"

[topology]
kind = "explicit"
nodes = ["a", "b", "c", "d"]

[[topology.links]]
src = "a"
dst = "b"
rate = "10Mbps"
delay = "1ms"
buffer = "50pkts"

[[topology.links]]
src = "c"
dst = "d"
rate = "10Mbps"
delay = "1ms"
buffer = "50pkts"

[[flows]]
cc = "newreno"
src = "a"
dst = "b"

[[flows]]
cc = "newreno"
src = "a"
dst = "c"
"""


@pytest.fixture
def write_scenario(tmp_path: Path) -> Callable[..., Path]:
    """Write scenario text to ``tmp_path/<stem>.toml`` and return the path."""

    def write(text: str, stem: str = "scenario") -> Path:
        path = tmp_path / f"{stem}.toml"
        path.write_text(text, encoding="utf-8")
        return path

    return write


def run_cli(*args: str | os.PathLike[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ccsim ARGS`` in ``cwd`` with this ccsim on the path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_PARENT), env.get("PYTHONPATH")]))
    env["COLUMNS"] = "120"  # rich tables: stable width
    return subprocess.run(
        [sys.executable, "-m", "ccsim", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


# The base of the sweep tests: four flows on a dumbbell, a second of simulated time, traced.
SWEEP_BASE = """
name = "base"
seed = 1
duration = "1s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
buffer = "20pkts"

[[flows]]
cc = "reno"
count = 4
rtt = "40ms"
start_jitter = "200ms"

[trace]
sample_interval = "50ms"
drops = true
"""


@pytest.fixture
def write_sweep(tmp_path: Path) -> Callable[..., Path]:
    """Write ``base.toml`` (SWEEP_BASE unless given) and a sweep file naming it; returns the
    sweep file's path."""

    def write(text: str, base: str = SWEEP_BASE, stem: str = "sweep") -> Path:
        (tmp_path / "base.toml").write_text(base, encoding="utf-8")
        path = tmp_path / f"{stem}.toml"
        path.write_text(f'scenario = "base.toml"\n{text}', encoding="utf-8")
        return path

    return write


# ---- Python congestion control: user modules -----------------------------------------------------

_module_names = itertools.count()


@pytest.fixture
def python_cc_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """The repository root (examples.python_cc) and tmp_path (modules written by :func:`module`)
    on the path, for this process and the sweep workers it spawns; names registered by a test
    are forgotten after it."""
    from ccsim.pycc import _REGISTERED

    monkeypatch.syspath_prepend(str(ROOT))
    monkeypatch.syspath_prepend(str(tmp_path))
    registered = dict(_REGISTERED)
    yield
    _REGISTERED.clear()
    _REGISTERED.update(registered)


@pytest.fixture
def ctrl_c_reaches_this_thread() -> Iterator[None]:
    """Python's own SIGINT handler for the test, as in an interactive shell: a process started in
    the background of a non-interactive shell ignores SIGINT, and ccsim then (rightly) reads a
    KeyboardInterrupt as an algorithm's error rather than a Ctrl-C."""
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, saved)


@pytest.fixture
def module(tmp_path: Path) -> Callable[[str], str]:
    """Write Python source to a fresh module under tmp_path; returns the module's name (use with
    :func:`python_cc_path`, which puts tmp_path on the path)."""

    def write(source: str) -> str:
        name = f"user_cc_{next(_module_names)}"
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        return name

    return write
