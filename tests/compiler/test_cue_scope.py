"""Free-text cues keep what tells an objective apart (engine/compiler/cue_scope.py): a scope noun the company's
description also uses is no cue; the words up to the head ('account type') and every word
of a name ('name of the skipper') stay."""

from __future__ import annotations

from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.model import CompileInput
from engine.kernel.goal_models import CriterionKind

LOCALE = {"currency": "EUR", "phone_region": "ES", "time_zone": "Europe/Madrid"}


def _cues(compiler: DeterministicCompiler, intent: str) -> dict[str, list[str]]:
    spec = compiler.compile(CompileInput(intent=intent, language="en", **LOCALE)).spec
    return {o.id: o.criterion.params["cues"]["en"] for o in spec.ordered()
            if o.criterion.kind is CriterionKind.FREE_TEXT}


def test_a_shared_scope_noun_is_no_cue_but_the_head_stays(compiler: DeterministicCompiler) -> None:
    cues = _cues(compiler, "We rent sailing boats on the lake. When someone writes to us, we want to know the "
                           "pick-up date of the boat, the style of boat they prefer and the name of the skipper.")
    [style] = [c for oid, c in cues.items() if "style" in c]
    assert "boat" not in style and "boats" not in style  # every visitor says 'boat'
    [skipper] = [c for oid, c in cues.items() if "skipper" in c]
    assert "name" in skipper  # a name keeps its words


def test_words_before_the_head_stay(compiler: DeterministicCompiler) -> None:
    cues = _cues(compiler, "We manage savings accounts. When a client calls, we want to know the account type of "
                           "the client and the amount to deposit into the account.")
    assert {"account", "type"} <= set(cues["account_type"])


def test_nothing_shared_leaves_the_cues_as_they_were(compiler: DeterministicCompiler) -> None:
    cues = _cues(compiler, "We want to know which hobby the visitor practises and their preferred date.")
    [hobby] = cues.values()
    assert "hobby" in hobby
