"""Held-out accuracy through the full turn runtime (TurnRuntime + decision layer + validators + offline proposer).

heldout_conversations.json was written from the paper's annotation rules only, before the proposer code, rule
files or the other golden sets were read; its first run (offline/1.0.0, before any fix) measured combined
STA 141/159 (88.7%), TSA 34/40 (85.0%), MC 159/159, EP 139/142 (97.9%), ER 139/148 (93.9%). Its references are
never edited to match output. General fixes then brought it to 100%, so it now guards them against regressions.

Thresholds, per domain (20 conversations each) and combined:
- STA >= 0.95: the project's held-out floor; one wrong turn costs ~1.3 points per domain (76-83 turns), so
  this allows about three misattributed turns per domain.
- MC = 1.0: monotonicity is a structural invariant of the decision layer, never a matter of accuracy.
- TSA >= 0.95 (at most one wrong terminal state per 20 conversations): consistent with STA >= 0.95, since a
  wrong terminal state is also a wrong scored turn, and one late commit recovered before the end is tolerated
  by STA while a missed final turn is not.
- EP, ER >= 0.95: the same 5% error budget on completion events as on turns.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from engine.evaluation.metrics import Metrics
from tests.evaluation.helpers import GOLDEN, run

HELDOUT = GOLDEN / "heldout_conversations.json"
HELDOUT_2 = GOLDEN / "heldout2_conversations.json"
# file -> (dataset name, real-estate conversations, cleaning conversations)
SETS = {HELDOUT: ("grace-heldout", 20, 20), HELDOUT_2: ("grace-heldout-2", 12, 18)}
PAPER = Path("/work/shared/benchmarks/paper_traces.json")


def _assert_heldout_targets(metrics: Metrics) -> None:
    assert metrics.sta.value >= 0.95, metrics.as_dict()
    assert metrics.mc.value == 1.0, metrics.as_dict()
    assert metrics.tsa.value >= 0.95, metrics.as_dict()
    assert metrics.ep.value >= 0.95, metrics.as_dict()
    assert metrics.er.value >= 0.95, metrics.as_dict()


@pytest.mark.parametrize("path", list(SETS), ids=lambda p: p.stem)
def test_heldout_set_meets_the_targets_per_domain_and_combined(path: Path) -> None:
    runs, metrics = run(path)
    assert {r.config for r in runs} == {"real_estate", "cleaning"}
    assert set(metrics) >= {"real_estate", "cleaning"}
    for values in metrics.values():
        _assert_heldout_targets(values)


@pytest.mark.parametrize("path", list(SETS), ids=lambda p: p.stem)
def test_heldout_set_has_the_specified_shape(path: Path) -> None:
    name, real_estate, cleaning = SETS[path]
    data = json.loads(path.read_text(encoding="utf-8"))
    conversations = data["conversations"]
    assert data["name"] == name
    assert "paper_results" not in data
    assert sum(c["config"] == "real_estate" for c in conversations) == real_estate
    assert sum(c["config"] == "cleaning" for c in conversations) == cleaning
    for conversation in conversations:
        turns = conversation["turns"]
        assert 3 <= len(turns) <= 6, conversation["id"]
        assert all(t["scored"] for t in turns), conversation["id"]
        states = ["0000"] + [t["reference"] for t in turns]
        for before, after in itertools.pairwise(states):
            assert all(a <= b for a, b in zip(before, after, strict=True)), (conversation["id"], after)


@pytest.mark.skipif(not PAPER.exists(), reason="shared paper traces not available")
@pytest.mark.parametrize("path", list(SETS), ids=lambda p: p.stem)
def test_heldout_set_reuses_the_paper_configs_and_no_paper_sentence(path: Path) -> None:
    heldout = json.loads(path.read_text(encoding="utf-8"))
    paper = json.loads(PAPER.read_text(encoding="utf-8"))
    assert heldout["configs"] == paper["configs"]
    paper_sentences = {t["visitor"].strip().lower() for c in paper["conversations"] for t in c["turns"]}
    reused = [t["visitor"] for c in heldout["conversations"] for t in c["turns"]
              if t["visitor"].strip().lower() in paper_sentences]
    assert reused == []
