"""The [stack] settings are the engine's: the Python model, the errors of `ccsim validate` and the
documentation's table all follow `_core.stack_settings()`."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ccsim.errors import ScenarioError
from ccsim.scenario import Scenario
from ccsim.units import format_time
from conftest import HAVE_ENGINE, requires_engine, run_cli

DOCS = Path(__file__).resolve().parents[1] / "docs" / "scenario-format.md"
PROFILES = ("ns2", "rfc", "linux-sack", "linux")

SCENARIO = """
name = "t"
duration = "1s"
[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
buffer = "20pkts"
[[flows]]
cc = "reno"
rtt = "20ms"
"""


def settings() -> list[dict[str, Any]]:
    from ccsim import _core

    return _core.stack_settings()


def docs_table() -> dict[str, list[str]]:
    """The rows of the documentation's `[stack]` table: key -> its cells after the key."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index(f"| `[stack]` key | {' | '.join(PROFILES)} | meaning |")
    rows = {}
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = cells[1:]
    return rows


def documented(value: Any, kind: str) -> str:
    """How the documentation writes a profile's value of a setting of this kind."""
    if isinstance(value, bool):
        return str(value).lower()
    if kind == "time":
        return f'"{format_time(value)}"'
    if kind == "choice":
        return f'"{value}"'
    return f"{value:g}" if abs(value) < 1e6 else str(int(value))


@requires_engine
def test_the_docs_table_lists_every_setting_in_order_with_each_profiles_value() -> None:
    table = docs_table()
    assert list(table) == [s["key"] for s in settings()]
    for setting in settings():
        cells = table[setting["key"]]
        for profile, cell in zip(PROFILES, cells, strict=False):
            value = setting["defaults"][profile]
            if value is None:
                assert cell in ("none", "(the algorithm's)"), (setting["key"], profile, cell)
            else:
                # A string is written as code; a cell may explain its value after it:
                # `3 (RFC 5681 rule on the MSS)`.
                written = re.sub(r"^`([^`]*)`", r"\1", cell)
                expected = documented(value, setting["kind"])
                assert re.match(re.escape(expected) + r"( |$)", written), (
                    setting["key"],
                    profile,
                    cell,
                )


def written_bound(value: float) -> str:
    """A bound as the documentation's ranges write it: 2^30 for a large power of two."""
    if value >= 1024 and float(value).is_integer() and int(value) & (int(value) - 1) == 0:
        return f"2^{int(value).bit_length() - 1}"
    return f"{value:g}"


@requires_engine
def test_the_docs_ranges_are_the_engines() -> None:
    """Each bounded setting's range in the paragraph under the table: numbers "low to high",
    times "at least" their floor (the ceiling of every time is the engine's, stated elsewhere)."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("Ranges: ")
    clauses = text[start : text.index("\n\n", start)].replace("\n", " ").split(";")
    for setting in settings():
        key, kind, low = setting["key"], setting["kind"], setting["min"]
        if kind in ("int", "float"):
            expected = f"{written_bound(low)} to {written_bound(setting['max'])}"
        elif kind == "time" and low > 0:
            expected = f'at least `"{format_time(low)}"`'
        else:
            continue
        saying = [c for c in clauses if f"`{key}`" in c]
        assert saying, f"{key}: no range in the docs"
        assert any(expected in c for c in saying), (key, expected, saying)


@requires_engine
def test_the_model_has_one_field_per_setting_named_as_in_the_engine() -> None:
    from ccsim.scenario import _STACK_ENGINE_NAMES, Stack

    assert list(Stack.model_fields) == [s["key"] for s in settings()]
    for setting in settings():
        assert _STACK_ENGINE_NAMES.get(setting["key"], setting["key"]) == setting["field"]


def error_of(stack: str) -> str:
    with pytest.raises(ScenarioError) as caught:
        Scenario.from_toml(SCENARIO + "[stack]\n" + stack)
    return str(caught.value)


@pytest.mark.parametrize("setting", settings() if HAVE_ENGINE else [], ids=lambda s: s["key"])
@requires_engine
def test_each_setting_rejects_a_value_of_the_wrong_kind_naming_key_value_and_expectation(
    setting: dict[str, Any],
) -> None:
    key, kind = setting["key"], setting["kind"]
    wrong = '"x"' if kind != "choice" else '"none of these"'
    message = error_of(f"{key} = {wrong}")
    assert message.startswith(f"stack.{key}: "), message
    assert "\n" not in message
    if kind == "choice":
        assert all(f'"{choice}"' in message for choice in setting["choices"]), message
    if kind in ("int", "float"):
        low = setting["min"]
        below = f"{low - 1:g}" if kind == "int" or low >= 1 else "-1"
        message = error_of(f"{key} = {below}")
        assert message.startswith(f"stack.{key}: {below} is not valid; expected a value greater"), (
            message
        )
    if kind == "time" and setting["min"] > 0:
        message = error_of(f'{key} = "0s"')
        assert (
            message
            == f'stack.{key}: "0s" is too short; expected at least "{format_time(setting["min"])}"'
        )


@requires_engine
def test_ccsim_validate_names_the_key_the_value_and_what_was_expected(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO + '[stack]\nrto_formula = "rfc"\n', encoding="utf-8")
    done = run_cli("validate", path, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        'error: stack.rto_formula: "rfc" is not valid; expected "rfc6298" or "linux"'
    )


@requires_engine
def test_the_profiles_values_are_the_resolved_profiles() -> None:
    from ccsim import _core

    profiles = _core.stack_profiles()
    for setting in settings():
        for profile in PROFILES:
            assert setting["defaults"][profile] == profiles[profile][setting["field"]]


def test_without_the_engine_a_stack_key_says_the_engine_is_missing() -> None:
    """The schema of [stack] is the engine's: without it, a [stack] key is an error that says so,
    and a scenario without one still loads."""
    code = (
        "import sys; sys.modules['ccsim._core'] = None\n"
        "from ccsim.errors import ScenarioError\n"
        "from ccsim.scenario import Scenario\n"
        f"text = {SCENARIO!r}\n"
        "Scenario.from_toml(text)\n"
        "try:\n"
        "    Scenario.from_toml(text + '[stack]\\nmin_rto = \"1s\"\\n')\n"
        "except ScenarioError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == (
        "stack.min_rto: [stack] settings are the engine's, and the engine (ccsim._core) is not "
        "built; expected no [stack] keys without it"
    )
