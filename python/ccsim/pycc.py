"""Congestion control written in Python: subclass :class:`CongestionControl`, name it in a scenario.

A scenario's ``cc`` may name a Python class by its import path, ``"package.module:ClassName"``,
or by a name registered in this process with :func:`register_cc`. Its ``[flows.params]`` are
passed to the class's constructor as keyword arguments, one instance per flow (and per transfer
of a generator). The engine calls the instance's hooks, the same ones as the Rust trait
``CongestionControl`` (crates/ccsim-core/src/cc/mod.rs), with the same samples; flows running a
built-in algorithm never touch Python. See docs/python-cc.md for a tutorial.

A module named by an import path is looked for on ``sys.path`` first, then in the directory of
the scenario file that names it (:func:`modules_beside`), then in the current directory.

When a hook raises, the run stops: :func:`ccsim.run` raises
:class:`~ccsim.CongestionControlError` (``ccsim._core``), whose ``__cause__`` is the exception
raised, with its traceback through the hook's own file and line. Nothing is written. A hook that
raises SystemExit has failed the same way, and so has one that raises KeyboardInterrupt where
Ctrl-C cannot (a sweep's worker; :func:`hook_error`). When a constructor fails (Ctrl-C in a slow
one included), no other flow's instance is built.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import inspect
import json
import math
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from types import FrameType, ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from ccsim.errors import ScenarioError, show_value

if TYPE_CHECKING:
    from ccsim._core import AckSample, CongestionEvent, PacingContext, SentSample

__all__ = [
    "CongestionControl",
    "is_python_cc",
    "modules_beside",
    "register_cc",
    "registered",
    "resolve",
]


class ScenarioLike(Protocol):
    """What this module reads of a :class:`ccsim.scenario.Scenario`: its flow groups and
    generators, each with a ``cc``, its ``params``, ``mss`` and ``max_window``, and its stack
    (``profile``, and ``stack`` whose ``resolve()`` gives the overrides by engine name). (The
    scenario module checks Python algorithms with this one, so this one does not import it.)"""

    @property
    def flows(self) -> Sequence[Any]: ...

    @property
    def generators(self) -> Sequence[Any]: ...

    @property
    def profile(self) -> str: ...

    @property
    def stack(self) -> Any: ...


#: The hooks a subclass may leave out; the engine calls only those a class overrides.
OPTIONAL_HOOKS = (
    "on_recovery_exit",
    "undo_cwnd",
    "on_ack_in_recovery",
    "on_dupack",
    "on_sent",
    "next_send_time",
    "on_send_blocked",
    "pacing_rate",
    "take_app_limited",
    "inspect",
)


class CongestionControl:
    """Base class of congestion-control algorithms written in Python.

    The window is two plain attributes, in segments: ``cwnd`` and ``ssthresh`` (``math.inf``
    until a first reduction). The sender owns it: before calling a hook that receives the window
    (:meth:`on_ack`, :meth:`on_congestion`, :meth:`on_recovery_exit`) it sets both attributes to
    the current values, and reads them back afterwards; ``cwnd`` must stay a finite number above
    0 and ``ssthresh`` above 0. Other hooks only observe: what they write to the window is ignored
    (and they may see values older than the sender's, e.g. during recovery). The attributes are
    set as soon as the constructor returns, to the window the flow opens with (the stack's
    initial window; ``ssthresh`` ``math.inf``, or the flow's ``max_window`` under
    ``initial_ssthresh_is_window``), so every hook may read them, :meth:`inspect`, :meth:`on_sent`
    and :meth:`next_send_time` before the first ACK included; they do not exist yet inside the
    constructor.

    Times and durations (``now``, RTTs) are integers in nanoseconds, as in the engine.

    Class attributes: :attr:`recovery` chooses the loss recovery the sender runs,
    :attr:`wants_delivery_rate` asks for ``ack.delay.rate`` under profiles that do not keep the
    send records it needs otherwise (ns2 without SACK), :attr:`needs_ecn` makes its flows
    ECN-capable, :attr:`sets_cwnd_on_every_ack` hands the algorithm every ACK and the window in
    recovery. All are read once per flow. With ECN, an ACK that echoes a mark has ``ack.ece``
    set and goes to :meth:`on_ack_in_recovery` (it never grows the window), and the sender's
    once-per-window reduction calls :meth:`on_congestion` with ``kind == "ecn"``.

    Pacing: a class that overrides :meth:`pacing_rate` has its flows paced by the sender at the
    rate it returns, read after the constructor and after each hook of an ACK or a loss.

    :meth:`on_ack` and :meth:`on_congestion` are required; the other hooks do nothing unless
    overridden, and one that is not overridden costs nothing (the engine does not call it).
    The constructor may be called once more per flow group than there are flows: the engine
    builds one instance of each group's algorithm to check it before the run.
    """

    #: "reno": RFC 5681 fast recovery (leave on the first ACK of new data); "newreno": RFC 6582
    #: (stay until everything outstanding at its start is acknowledged).
    recovery: ClassVar[Literal["reno", "newreno"]] = "newreno"
    #: Whether the algorithm reads ``ack.delay.rate`` (see the class documentation).
    wants_delivery_rate: ClassVar[bool] = False
    #: Whether the algorithm works only with ECN (RFC 3168): its flows then set ECT whatever the
    #: stack's ``ecn`` says, and ``ack.ece`` tells which ACKs echo a congestion mark.
    needs_ecn: ClassVar[bool] = False
    #: Whether the algorithm owns the window on every ACK, as Linux's ``cong_control`` modules
    #: (BBR) do: :meth:`on_ack` is then called on every ACK in every state (duplicate ACKs, fast
    #: recovery, after a timeout, ECN echoes; :meth:`on_ack_in_recovery` never is), and during
    #: recovery the sender leaves cwnd to it (no PRR, no window inflation, no cwnd = ssthresh when
    #: recovery ends). :meth:`on_congestion` is still called once per episode, and a timeout
    #: still sets cwnd to 1 before the next ACK.
    sets_cwnd_on_every_ack: ClassVar[bool] = False

    #: Congestion window, segments: the flow's initial window from construction on, then set by
    #: the sender before each hook that receives the window and read back after it.
    cwnd: float
    #: Slow-start threshold, segments: ``math.inf`` (no threshold) until a reduction sets one, or
    #: the flow's ``max_window`` from the start under the stack's ``initial_ssthresh_is_window``.
    ssthresh: float

    def on_ack(self, ack: AckSample) -> None:
        """An ACK advanced the cumulative ACK while not in loss recovery (with
        :attr:`sets_cwnd_on_every_ack`: any ACK, in any state): update the window."""
        raise NotImplementedError(f"{type(self).__qualname__} does not define on_ack")

    def on_congestion(self, event: CongestionEvent) -> None:
        """A loss episode starts (``event.kind``: "loss", "ecn" or "timeout"): set ``ssthresh``
        and the reduced ``cwnd``. Called once per episode."""
        raise NotImplementedError(f"{type(self).__qualname__} does not define on_congestion")

    def on_recovery_exit(self, now: int) -> None:
        """Fast recovery ended with a full ACK; the sender has already set cwnd = ssthresh."""

    def undo_cwnd(self, now: int, prior_cwnd: float) -> float:
        """The last reduction proved spurious (the stack's ``undo`` or ``frto``):
        return the cwnd to restore, given ``prior_cwnd``, the cwnd before the reduction (the window
        attributes hold the current values; what the hook writes to them is ignored). The sender
        then puts ``ssthresh`` back to its value before the reduction, if that is larger. The
        default is Linux's ``tcp_reno_undo_cwnd``: ``max(cwnd, prior_cwnd)``."""
        return max(self.cwnd, prior_cwnd)

    def on_ack_in_recovery(self, ack: AckSample) -> None:
        """An ACK advanced the cumulative ACK during fast recovery (observe only)."""

    def on_dupack(self, now: int) -> None:
        """A duplicate ACK arrived, in recovery or not."""

    def on_sent(self, sent: SentSample) -> None:
        """A segment left the sender."""

    def next_send_time(self, ctx: PacingContext) -> int | None:
        """Earliest time (ns) the next segment may leave; None sends as soon as the window
        allows. Called each time the window would allow a transmission."""
        return None

    def on_send_blocked(self, now: int) -> None:
        """The pacing timer fired but the window did not allow a transmission."""

    def pacing_rate(self) -> float | None:
        """The rate the sender paces this flow at, segments per second; None: not paced.
        Overriding it makes the sender pace (the way Linux paces internally, or sch_fq does):
        after each segment the next may leave 1/rate later; the connection's first 10 segments
        leave unpaced. Called after the constructor and after each hook of an ACK or a loss
        (:meth:`on_ack`, :meth:`on_ack_in_recovery`, :meth:`on_dupack`, :meth:`on_congestion`,
        :meth:`on_recovery_exit`, :meth:`undo_cwnd`); the sender keeps the last answer."""
        return None

    def take_app_limited(self) -> bool:
        """Called after each :meth:`on_ack` (for classes with :attr:`sets_cwnd_on_every_ack` or
        that override :meth:`on_sent` or :meth:`next_send_time`): True marks the data in flight
        app-limited, as Linux's ``tp->app_limited`` (BBR's PROBE_RTT does so), so the rate
        samples of segments sent until it is delivered have ``app_limited`` set."""
        return False

    def inspect(self, now: int) -> dict[str, float]:
        """The algorithm's own state, by name, when the scenario samples series: each name
        becomes a ``cc_<name>`` column of the ``series`` table. Called from the flow's start on,
        possibly before any other hook: the window is then the flow's initial one."""
        return {}


# ---- names ----------------------------------------------------------------------------------

#: Names registered in this process: a class, or the import path of one (given to a sweep worker
#: by the process that registered the name; imported when first used).
_REGISTERED: dict[str, type[CongestionControl] | str] = {}
#: Classes resolved from import paths, by path.
_RESOLVED: dict[str, type[CongestionControl]] = {}
#: The directory of the scenario file being read, if any: where a module not found on
#: ``sys.path`` is looked for next (:func:`modules_beside`).
_SCENARIO_DIRECTORY: ContextVar[Path | None] = ContextVar("scenario_directory", default=None)


@contextmanager
def modules_beside(directory: str | os.PathLike[str] | None) -> Iterator[None]:
    """While the block runs, a module that an import path names and ``sys.path`` does not hold
    is looked for in ``directory`` (the scenario file's), before the current directory.

    ``sys.path`` comes first so that a name means the same module here and in a sweep's workers:
    the directory a module is found in is appended to ``sys.path``, which local workers inherit,
    so they find it there in the same order. A module is imported once per process: a second
    scenario directory with a module of the same name gets the first one.
    """
    token = _SCENARIO_DIRECTORY.set(Path(os.path.abspath(directory)) if directory else None)
    try:
        yield
    finally:
        _SCENARIO_DIRECTORY.reset(token)


def register_cc(name: str, cls: type[CongestionControl] | str) -> None:
    """Make ``cc = "name"`` mean the class ``cls`` (or the class at the import path
    ``"package.module:Class"``) in scenarios run from this process.

    A sweep's workers in other processes get the class by its import path
    (``cls.__module__:cls.__qualname__``), so a class used there must be importable: defined at
    the top level of a module, not in a function or an interactive session. A name may not be a
    built-in algorithm's and may not contain ":".
    """
    if not isinstance(name, str) or not name or ":" in name or name != name.strip():
        raise ValueError(
            f"{show_value(name)} is not a valid algorithm name; expected a non-empty string "
            'without ":" or surrounding spaces'
        )
    if name in _builtin_names():
        raise ValueError(f'"{name}" is a built-in algorithm; choose another name')
    if isinstance(cls, str):
        _split_path(cls)  # a clear error now rather than at the first run
    elif not (isinstance(cls, type) and issubclass(cls, CongestionControl)):
        raise TypeError(f"{cls!r} is not a subclass of ccsim.CongestionControl")
    _REGISTERED[name] = cls


def registered() -> dict[str, str]:
    """The names registered in this process and the import path of each one's class."""
    return {name: _path_of(cls) for name, cls in _REGISTERED.items()}


def register_paths(paths: Mapping[str, str]) -> None:
    """Register names given as import paths (a sweep worker receives the parent's
    :func:`registered`); a name this process has registered already keeps its class."""
    for name, path in paths.items():
        _REGISTERED.setdefault(name, path)


def is_python_cc(name: str) -> bool:
    """Whether a scenario's ``cc`` names a Python class (an import path or a registered name)."""
    return ":" in name or name in _REGISTERED


def resolve(name: str) -> type[CongestionControl]:
    """The class a ``cc`` value names: imported from ``"package.module:Class"``, or registered
    with :func:`register_cc`. Raises :class:`ScenarioError` (without a key path) when it cannot."""
    target = _REGISTERED.get(name, name)
    if isinstance(target, type):
        return target
    if target in _RESOLVED:
        return _RESOLVED[target]
    module_name, qualname = _split_path(target)
    shown = (
        show_value(target)
        if target == name
        else f"{show_value(name)} (registered as {show_value(target)})"
    )
    try:
        module = _import(module_name)
    except ImportError as error:
        raise ScenarioError(
            f"cannot import {shown}: {error}; the module must be importable by this Python "
            "(installed, on PYTHONPATH, beside the scenario file or under the current directory)"
        ) from None
    except Exception as error:
        raise ScenarioError(f"importing {shown} raised {type(error).__name__}: {error}") from None
    found: Any = module
    for part in qualname.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise ScenarioError(
                f"cannot import {shown}: module {module_name} has no attribute {qualname}"
            )
    if not (isinstance(found, type) and issubclass(found, CongestionControl)):
        raise ScenarioError(f"{shown} is not a subclass of ccsim.CongestionControl")
    _RESOLVED[target] = found
    return found


def check(name: str, params: Mapping[str, Any]) -> None:
    """Check that ``name`` resolves to a class whose constructor accepts ``params``; raises
    :class:`ScenarioError` with a path relative to the transfer (``cc``, ``params.x``)."""
    try:
        cls = resolve(name)
    except ScenarioError as error:
        raise error.under(("cc",)) from None
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return  # a constructor Python cannot describe: it will say so itself
    accepted = _parameter_names(signature)
    for key in params:
        if accepted is not None and key not in accepted:
            expected = (
                f"one of: {', '.join(accepted)}" if accepted else "none (it takes no parameters)"
            )
            raise ScenarioError(
                f"{name} has no parameter {show_value(key)}; expected {expected}", ("params", key)
            )
    for p in signature.parameters.values():
        required = p.default is inspect.Parameter.empty and p.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        )
        if required and p.name not in params:
            raise ScenarioError(
                f"{name} requires parameter {show_value(p.name)}; expected it under params",
                ("params",),
            )


def parameter_names(name: str) -> list[str] | None:
    """The parameters the class that ``name`` names takes; None when it takes any keyword or
    its constructor cannot be described. Raises :class:`ScenarioError` when ``name`` does not
    resolve (:func:`resolve`)."""
    try:
        signature = inspect.signature(resolve(name))
    except (TypeError, ValueError):
        return None
    return _parameter_names(signature)


def _parameter_names(signature: inspect.Signature) -> list[str] | None:
    parameters = signature.parameters.values()
    if any(p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    keyword = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in parameters if p.kind in keyword]


# ---- what the engine calls -------------------------------------------------------------------


class _Build:
    """What the makers of one simulation share: whether a constructor has failed."""

    def __init__(self) -> None:
        self.failed = False


class _BuildStopped(Exception):
    """Raised instead of constructing once a constructor of the same simulation has failed: the
    engine keeps the first failure and ignores this one."""


class _Use:
    """One transfer's use of a Python algorithm: its parameters as the scenario gave them and
    the window its flows open with, ``(cwnd, ssthresh)``."""

    def __init__(self, params: Mapping[str, Any], window: tuple[float, float]) -> None:
        self.params = dict(params)
        self.as_floats = _as_floats(params)
        self.window = window


class _Maker:
    """Builds one flow's instance from the parameters the engine hands over (all floats, as the
    engine carries them), restoring the types the scenario gave them (ints, booleans), and gives
    it the window its flow opens with."""

    def __init__(
        self,
        name: str,
        cls: type[CongestionControl],
        uses: list[_Use],
        build: _Build,
    ) -> None:
        self.name = name
        self.cls = cls
        self.uses = uses
        self.hooks = tuple(hook for hook in OPTIONAL_HOOKS if _overrides(cls, hook))
        self.build = build

    def __call__(self, params: dict[str, float]) -> tuple[CongestionControl, tuple[str, ...]]:
        # The engine asks for every flow's instance even after one constructor has failed (Ctrl-C
        # in a slow constructor included): the run is over by then, so construct nothing more.
        try:
            if self.build.failed:
                raise _BuildStopped
            # The engine says only the parameters: transfers with equal ones that open with
            # different windows (MSS, max_window) start from the first one's until a window hook.
            use = next((u for u in self.uses if u.as_floats == params), None)
            instance = self.cls(**(use.params if use is not None else params))
            if not isinstance(instance, CongestionControl):
                raise TypeError(f"{self.cls.__qualname__}() did not return a CongestionControl")
            # The sender lends its window only to the hooks that receive it; the others (inspect,
            # on_sent, next_send_time) may run before the first of those, and read it too.
            instance.cwnd, instance.ssthresh = (use or self.uses[0]).window
        except BaseException:
            self.build.failed = True
            raise
        return instance, self.hooks


def makers(scenario: ScenarioLike) -> dict[str, _Maker]:
    """For each Python algorithm the scenario names, the callable the engine builds it with."""
    uses: dict[str, list[_Use]] = {}
    for transfer in _transfers(scenario):
        if is_python_cc(transfer.cc):
            window = opening_window(scenario, transfer)
            uses.setdefault(transfer.cc, []).append(_Use(transfer.params, window))
    build = _Build()
    return {name: _Maker(name, resolve(name), found, build) for name, found in uses.items()}


def standalone_maker(name: str, params: Mapping[str, Any], profile: str, mss: int) -> _Maker:
    """The maker of one instance of the Python algorithm ``name`` outside a scenario (the
    single-algorithm harness, :mod:`ccsim.harness`), opening with the window a flow of
    ``profile`` with this ``mss`` opens with."""
    stack = _stack_profiles()[profile]
    cwnd = _rfc5681_initial_window(mss) if profile == "rfc" else float(stack["initial_window"])
    return _Maker(name, resolve(name), [_Use(params, (cwnd, math.inf))], _Build())


def opening_window(scenario: ScenarioLike, transfer: Any) -> tuple[float, float]:
    """``(cwnd, ssthresh)`` of a flow of ``transfer`` when it opens, as the sender sets them
    (crates/ccsim-core/src/tcp/sender.rs): the stack's ``initial_window`` (the RFC 5681 rule
    on the flow's MSS under the ``rfc`` profile when ``initial_window`` is not written), and
    ``ssthresh`` infinite, or the flow's receiver window under ``initial_ssthresh_is_window``."""
    overrides: Mapping[str, Any] = scenario.stack.resolve()
    stack = {**_stack_profiles()[scenario.profile], **overrides}
    if scenario.profile == "rfc" and "initial_window" not in overrides:
        cwnd = _rfc5681_initial_window(transfer.mss)
    else:
        cwnd = float(stack["initial_window"])
    if stack["initial_ssthresh_is_window"]:
        max_window = transfer.max_window
        ssthresh = float(max_window if max_window is not None else stack["default_max_window_pkts"])
    else:
        ssthresh = math.inf
    return cwnd, ssthresh


def _rfc5681_initial_window(mss: int) -> float:
    """RFC 5681 section 3.1: the initial window for a sender maximum segment size, segments."""
    if mss <= 1095:
        return 4.0
    return 3.0 if mss <= 2190 else 2.0


@cache
def _stack_profiles() -> dict[str, dict[str, Any]]:
    from ccsim import _core  # the engine: a run needs it, so it is built when this is called

    return dict(_core.stack_profiles())


def hook_error(error: BaseException, scenario: ScenarioLike) -> Exception | None:
    """The :class:`~ccsim.CongestionControlError` for ``error``, a ``SystemExit`` or
    ``KeyboardInterrupt`` raised by a hook or constructor of one of the scenario's Python
    algorithms, or None when no hook raised it.

    The engine names the hook only for an ``Exception`` and passes these two on as they are; a
    hook that exits or interrupts has failed all the same, and is named here the same way (less
    the flow's label, which the hook's frames do not tell). The error's ``__cause__`` is
    ``error``, its traceback starting at the hook.
    """
    found = _hook_frame(error, scenario)
    if found is None:
        return None
    tb, what = found
    error.__traceback__ = tb  # the user's frames only, as for an exception the engine wrapped
    value = str(error)
    message = f"{what} raised {type(error).__name__}{f': {value}' if value else ''}"
    # The engine is imported where it is used, so that ccsim imports even when it is not built.
    from ccsim._core import CongestionControlError

    wrapped = CongestionControlError(message)
    wrapped.__cause__ = error
    return wrapped


def _hook_frame(error: BaseException, scenario: ScenarioLike) -> tuple[TracebackType, str] | None:
    """The traceback from the outermost frame of a hook (or constructor) of a Python algorithm,
    and what that frame is, in the words of the engine's errors."""
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        owner = frame.f_locals.get("self")
        if isinstance(owner, _Maker):
            return tb, f"the constructor of {json.dumps(owner.name)}"
        if isinstance(owner, CongestionControl):
            hook = frame.f_code.co_name
            now = _time_of(frame)
            when = f" (at {now / 1e9:.6f} s of simulated time)" if now is not None else ""
            return tb, f"{hook} of {json.dumps(_name_of(type(owner), scenario))}{when}"
        tb = tb.tb_next
    return None


def _time_of(frame: FrameType) -> int | None:
    """The simulated time a hook was called at: its ``now`` argument, or its sample's ``now``."""
    code = frame.f_code
    for name in code.co_varnames[1 : code.co_argcount]:
        value = frame.f_locals.get(name)
        now = value if name == "now" else getattr(value, "now", None)
        if isinstance(now, int) and not isinstance(now, bool):
            return now
    return None


def _name_of(cls: type[CongestionControl], scenario: ScenarioLike) -> str:
    """The ``cc`` the scenario names ``cls`` by (a registered name or an import path)."""
    for transfer in _transfers(scenario):
        target = _REGISTERED.get(transfer.cc, transfer.cc)
        if target is cls or (isinstance(target, str) and _RESOLVED.get(target) is cls):
            return str(transfer.cc)
    return _path_of(cls)


def registered_in(scenario: ScenarioLike) -> dict[str, str]:
    """The registered names the scenario uses, with their classes' import paths (for workers)."""
    used = {t.cc for t in _transfers(scenario) if t.cc in _REGISTERED}
    return {name: _path_of(_REGISTERED[name]) for name in sorted(used)}


def _transfers(scenario: ScenarioLike) -> Iterable[Any]:
    yield from scenario.flows
    yield from scenario.generators


def _as_floats(params: Mapping[str, Any]) -> dict[str, float]:
    return {key: float(value) for key, value in params.items()}


def _overrides(cls: type, hook: str) -> bool:
    for klass in cls.__mro__:
        if hook in vars(klass):
            return klass is not CongestionControl
    return False


def _path_of(cls: type[CongestionControl] | str) -> str:
    return cls if isinstance(cls, str) else f"{cls.__module__}:{cls.__qualname__}"


def _split_path(path: str) -> tuple[str, str]:
    module_name, _, qualname = path.partition(":")
    if not module_name or not qualname or ":" in qualname:
        raise ScenarioError(
            f'{show_value(path)} is not an import path; expected "package.module:ClassName"'
        )
    return module_name, qualname


def _import(module_name: str) -> ModuleType:
    """Import a module from ``sys.path``; when it is not found there, from the scenario file's
    directory (:func:`modules_beside`), then from the current directory (as ``python -m`` would,
    since the ``ccsim`` command's own directory is what Python searches). A directory the module
    is found in is appended to ``sys.path``: the module's own imports of its neighbours work, and
    a sweep's local workers, which start with this ``sys.path``, find it the same way."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        missing = error.name or ""
        if not (module_name == missing or module_name.startswith(f"{missing}.")):
            raise  # the module was found; something it imports was not
        top = module_name.partition(".")[0]
        if top in sys.modules:
            raise  # a package found on sys.path lacks the submodule: another directory cannot help
        for directory in (_SCENARIO_DIRECTORY.get(), Path.cwd()):
            if directory is None or str(directory) in sys.path:
                continue
            if importlib.machinery.PathFinder.find_spec(top, [str(directory)]) is not None:
                sys.path.append(str(directory))
                return importlib.import_module(module_name)
        raise


def _builtin_names() -> set[str]:
    try:
        from ccsim import _core  # the engine, which may not be built
    except ImportError:
        return set()
    return {info["name"] for info in _core.algorithms()}
