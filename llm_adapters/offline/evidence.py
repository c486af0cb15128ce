"""What an extractor returns: one candidate value for one objective, with where its witness lies."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.kernel.goal_models import GoalSpec, Objective
from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.offline_rules import VocabularyData


@dataclass(frozen=True)
class Evidence:
    value: str
    pos: int  # folded offset of the value, for ordering
    sentences: tuple[tuple[int, int], ...]  # folded spans of the sentences the witness needs
    old: bool = False  # a value the visitor is replacing
    rank: int = 0  # higher is more convincing (explicit cue, known vocabulary term, ...)


@dataclass(frozen=True)
class ExtractionContext:
    """What an extractor may know beyond the message: the objective, whether its question was just asked,
    whether the visitor is correcting something, and the other objectives' vocabularies."""

    analysis: Analysis
    objective: Objective
    lenient: bool  # the previous question targeted this objective: bare answers of the right kind count
    correcting: bool
    unit_terms: tuple[VocabularyData, ...] = field(default_factory=tuple)  # features vocabularies: '3 bedrooms'
    # The company's own words (terms of the spec's vocabularies and objective cues): "a villa in Mojácar" is
    # about the visitor's wish when "villa" is one of the company's words (spec/adr/0003 §5).
    company_terms: frozenset[str] = frozenset()
    spec: GoalSpec | None = None  # the pinned spec: locale (currency, region, time zone) and company data
    reference_time: datetime | None = None  # the turn's received-at: anchors relative dates
    # Folded offsets of the values already chosen for other objectives of this message (free-text objectives are
    # extracted last): the visitor's answer is the clause around none of them.
    taken: tuple[int, ...] = ()
    # The subset of ``taken`` that only restates another objective's recorded value ('... con clientes en inglés'
    # when English is already the language): context of the clause, not the clause's topic.
    restated: tuple[int, ...] = ()
    asked: str | None = None  # the objective the previous question targeted, if any (roles of shared vocabularies)
    # Objectives already holding a value, with that value ('' when unknown): an unnamed date goes to an open one.
    recorded: tuple[tuple[str, str], ...] = ()

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.objective.criterion.params)

    def allowed(self, sentence_is_question: bool, kind: str, seeks_offer: bool = False,
                proposes_figure: bool = False) -> bool:
        """May a sentence (a question or not) carry evidence of this kind? ``seeks_offer``: the question asks for
        the company's offer, so the visitor's search parameters in it count (settings.offer_question_...);
        ``proposes_figure``: a short question proposing a figure ('around R900 a head?') answers the question
        just asked about this objective."""
        settings = self.analysis.rules.settings
        return (not sentence_is_question or kind in settings.question_evidence_kinds
                or (seeks_offer and kind in settings.offer_question_evidence_kinds)
                or (proposes_figure and self.lenient))
