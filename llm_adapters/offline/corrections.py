"""Revisions of recorded values (SPEC D-5 ``Correct``, D-6; issue 32): which complete objectives a visitor
message revises, and with which of its values.

A complete objective is revised when the visitor states a new value for it and

* marks a correction ("actually", "en realidad": the language data's ``correction`` cue) — the paper's case;
* replaces the recorded value in the same breath ("we are 3 people, not 2", "not 2, 3", "no 2, sino 3"): the
  extractor marks the negated value as old; a bare "not 2, 3" is read as an answer to the objective whose
  recorded value it negates, so the implicit form needs no topic word;
* or names the objective by its own words or its kind's topic words ("the date should be Sunday 17 May").

Merely restating the recorded value is not a revision, and neither is a value of another objective said in
passing. When a message marks a correction of a recorded objective but no new value for it can be read, the
proposal carries a note (``UNRESOLVED_NOTE``) so the reply says so honestly instead of acknowledging it.
The decision layer validates a ``Correct`` like the original value; it never un-completes (I-6).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.kernel.goal_models import CriterionKind, Objective
from engine.text import fold
from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.cues import Cues, topic_objectives
from llm_adapters.offline.evidence import Evidence

UNRESOLVED_NOTE = "proposer.correction_unresolved"  # "<note>:<objective id>"

# (objective, lenient) -> the extractor's candidates for that objective in this message
Extract = Callable[[Objective, bool], list[Evidence]]


@dataclass(frozen=True)
class Revisions:
    values: dict[str, Evidence]  # objective id -> the new value's evidence
    unresolved: tuple[str, ...]  # objectives the visitor marked as wrong without a readable new value


def _same(value: str, recorded: str | None) -> bool:
    return recorded is not None and fold(value).strip() == fold(recorded).strip()


def _best(candidates: list[Evidence]) -> Evidence:
    return min(candidates, key=lambda e: (-e.rank, e.pos))


def _named(analysis: Analysis, found: Evidence, objective: Objective, objectives: list[Objective],
           bits: dict[str, int], last_asked: str | None) -> bool:
    """The evidence's sentence talks about this objective (its own cue terms or its kind's topic words)."""
    for start, _ in found.sentences:
        sentence = analysis.sentence_at(start)
        if sentence is not None and objective.id in topic_objectives(analysis, sentence, objectives, bits,
                                                                     last_asked):
            return True
    return False


def find_revisions(
    analysis: Analysis, cues: Cues, objectives: list[Objective], bits: dict[str, int],
    evidence: dict[str, Evidence], replacing: set[str], recorded: dict[str, str], last_asked: str | None,
    extract: Extract,
) -> Revisions:
    complete = [o for o in objectives if bits.get(o.id) == 1]
    if not complete:
        return Revisions({}, ())
    revised: dict[str, Evidence] = {}
    restated = {o.id: evidence[o.id] for o in complete if o.id in evidence
                and not _same(evidence[o.id].value, recorded.get(o.id))}
    named = {oid for hit in cues.of("correction") for oid in hit.objectives}
    if cues.correcting:
        targeted = {oid for oid in restated if oid in replacing or oid in named}
        if not targeted and len(restated) == 1:
            targeted = set(restated)
        revised.update({oid: restated[oid] for oid in targeted})
    else:
        by_id = {o.id: o for o in objectives}
        for oid, found in restated.items():
            # free text restated without a cue is rarely a revision ('el coche está en …' is not a new car)
            free = by_id[oid].criterion.kind is CriterionKind.FREE_TEXT
            if oid in replacing or (not free and _named(analysis, found, by_id[oid], objectives, bits, last_asked)):
                revised[oid] = found
    if not revised:
        revised.update(_implicit(complete, recorded, extract))
    unresolved = tuple(o.id for o in complete if o.id not in revised and (o.id in named or o.id in replacing))
    return Revisions(revised, unresolved if cues.correcting or replacing else ())


def _implicit(complete: list[Objective], recorded: dict[str, str], extract: Extract) -> dict[str, Evidence]:
    """"not 2, 3": read leniently (bare values count), the objective for which the message negates one value and
    states another; when several could be meant, the one whose recorded value is the negated one."""
    options: dict[str, tuple[Evidence, bool]] = {}
    for objective in complete:
        found = extract(objective, True)
        old = [e for e in found if e.old]
        new = [e for e in found if not e.old and not _same(e.value, recorded.get(objective.id))]
        if old and new:
            options[objective.id] = (_best(new), any(_same(e.value, recorded.get(objective.id)) for e in old))
    if len(options) > 1:
        options = {oid: option for oid, option in options.items() if option[1]}
    return {oid: found for oid, (found, _) in options.items()} if len(options) == 1 else {}
