"""``ccsim conformance``: this build passes it, and an algorithm that breaks its specification
fails it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import requires_engine, run_cli

pytestmark = requires_engine

BROKEN_RENO = '''
import ccsim


class WrongDecrease(ccsim.CongestionControl):
    """Reno whose loss reduction keeps 90% of the window instead of half."""

    def on_ack(self, ack):
        if ack.acked > 0:
            self.cwnd += ack.acked if self.cwnd < self.ssthresh else ack.acked / self.cwnd

    def on_congestion(self, event):
        self.ssthresh = max(self.cwnd * 0.9, 2.0)
        self.cwnd = self.ssthresh if event.kind != "timeout" else 1.0


class RenoAsHtcp(WrongDecrease):
    """Reno passed off as H-TCP: one segment per RTT whatever the time since the last loss,
    and always half the window."""

    def on_congestion(self, event):
        self.ssthresh = max(self.cwnd * 0.5, 2.0)
        self.cwnd = self.ssthresh if event.kind != "timeout" else 1.0
'''


def test_this_build_passes_every_check(tmp_path: Path) -> None:
    result = run_cli("conformance", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) >= 20
    assert all(row["result"] == "pass" for row in rows)
    ids = {row["id"] for row in rows}
    assert {
        "cubic.w_at_k",
        "reno.mathis_0.01",
        "reno.pftk_0.02",
        "newreno.pftk_0.005",
        "bbr.probe_rtt_cwnd",
        "dualpi2.classic_coupling",
        "htcp.beta_adaptive",
        "freedrop.p_exponent",
        "dctcp.alpha_law",
        "recovery.dupthresh",
        "recovery.tlp_pto",
        "recovery.prr_rate",
        "recovery.rto_backoff",
        "study.r13_reno_lockout",
    } <= ids
    one_sided = {row["id"]: row for row in rows if row["tolerance"] in ("at least", "at most")}
    assert {"study.h1_fusion_over_reno", "study.r13_randomized_relief"} <= set(one_sided)


def test_reno_with_a_wrong_decrease_fails_and_says_where(tmp_path: Path) -> None:
    (tmp_path / "broken_reno.py").write_text(BROKEN_RENO, encoding="utf-8")
    result = run_cli(
        "conformance",
        "--only",
        "reno",
        "--use",
        "reno=broken_reno:WrongDecrease",
        "--json",
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    rows = {row["id"]: row for row in map(json.loads, result.stdout.splitlines())}
    assert rows["reno.decrease"]["result"] == "FAIL"
    assert abs(rows["reno.decrease"]["ours"] - 0.1) < 1e-9
    # A gentler decrease keeps a larger window under loss: more than the Mathis law allows.
    assert rows["reno.mathis_0.01"]["result"] == "FAIL"
    # It also sends far more than PFTK's model at its own loss-indication rate (2.5 times).
    pftk = [row for id, row in rows.items() if id.startswith("reno.pftk_")]
    assert len(pftk) == 3 and all(row["result"] == "FAIL" and row["ours"] > 2 for row in pftk)
    assert rows["reno.increase"]["result"] == "pass"  # the increase is still Reno's


def test_reno_passed_off_as_htcp_fails_htcps_time_and_rtt_laws(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """H-TCP's first decrease, its first second after a loss and its floor on beta (a half,
    where RTT_min / RTT_max is lower) are Reno's, so those pass; its growth seconds after a loss
    and its RTT-adapted decrease are not. (In process: the CLI's exit status is the Reno
    test's.)"""
    from ccsim import conformance

    (tmp_path / "reno_as_htcp.py").write_text(BROKEN_RENO, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    outcomes = {o.id: o for o in conformance.run({"htcp": "reno_as_htcp:RenoAsHtcp"}, ["htcp"])}
    assert not any(o.error for o in outcomes.values()), outcomes
    passed = {id for id, o in outcomes.items() if o.passed}
    assert passed == {"htcp.decrease", "htcp.increase_low_speed", "htcp.beta_min"}, outcomes
    assert abs(outcomes["htcp.beta_adaptive"].ours - 0.5) < 1e-9


def test_one_sided_checks_pass_on_their_side_only() -> None:
    from ccsim.conformance import AT_LEAST, AT_MOST, Check

    def check(kind: str) -> Check:
        return Check("x.y", "what", "source", 0.6, 0.0, False, (), lambda u: 0.0, kind=kind)

    assert check(AT_LEAST).passes(0.6) and check(AT_LEAST).passes(0.9)
    assert not check(AT_LEAST).passes(0.59) and not check(AT_LEAST).passes(float("nan"))
    assert check(AT_MOST).passes(0.2) and not check(AT_MOST).passes(0.61)
    assert check(AT_MOST).tolerance_text() == "at most"
    with pytest.raises(ValueError, match="kind"):
        check("roughly")


def test_bad_replacements_are_refused_in_one_line(tmp_path: Path) -> None:
    for args, fragment in (
        (["--use", "reno"], "expected NAME=module:Class"),
        (["--use", "renoo=m:C"], "'renoo' is not a built-in algorithm"),
        (["--only", "nothing"], "no check matches"),
    ):
        result = run_cli("conformance", *args, cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0], (
            result.stderr
        )


def test_every_check_is_listed_in_the_docs() -> None:
    from ccsim import conformance

    doc = (Path(__file__).resolve().parents[1] / "docs" / "conformance.md").read_text(
        encoding="utf-8"
    )
    missing = [c.id for c in conformance.all_checks() if f"| `{c.id}` |" not in doc]
    assert not missing, f"docs/conformance.md lacks rows for {missing}"
    assert f"suite version {conformance.VERSION}" in doc
