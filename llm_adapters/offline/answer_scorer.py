"""A learned scorer the offline proposer may consult before it completes an objective: how likely is it that this
visitor message answers this objective with this candidate value (issue 28 item 7)?

It only ever *removes* a candidate the rules proposed (a veto below a threshold); it never proposes a value, never
completes anything, and the decision layer still checks every command that is left. It reads the visitor's own
message only: a message of any other role (assistant text, retrieved passages) is refused with
``proposer.scorer.not_visitor``.

The model is a logistic regression over cheap features (criterion kind, whether the objective was asked, the
extractor's rank, where the value sits, how long it is, whether it sits in a question, whether the objective's cue
words are in the message) and hashed words of the value and its clause, crossed with the kind. Inference is one
dot product in numpy. Its file (``models/answer_scorer.json``) is rebuilt by ``benchmarks/fit_answer_scorer.py`` from
the SGD train split (CC BY-SA 4.0) and measured on SGD dev; the rule file ``rules/learned.json`` switches it on
and holds the kinds it may veto with a threshold each (without that file or its section: off).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.kernel.conversation import Role
from engine.kernel.goal_models import Objective
from engine.kernel.ports import ProposerInput
from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.cues import objective_cues
from llm_adapters.offline.declined import DECLINED_PREFIX
from llm_adapters.offline.errors import ScorerError
from llm_adapters.offline.evidence import Evidence

MODEL_PATH = Path(__file__).with_name("models") / "answer_scorer.json"
KINDS = ("free_text", "enumeration", "features", "place", "quantity", "datetime", "money", "contact")
DENSE = ("bias", "asked", "asked_other", "nothing_asked", "rank", "in_question", "seeks_offer", "value_words",
         "message_words", "value_share", "position", "others_taken", "turn", "cue_in_message", "value_is_message",
         *(f"kind={k}" for k in KINDS))
HASH_BITS = 12  # 4,096 hashed word features: the model file stays far below 100 kB
_MAX_CLAUSE_WORDS = 12


def _bucket(token: str) -> int:
    """A stable hash (never Python's salted ``hash``): the same token lands in the same bucket on every machine."""
    digest = hashlib.blake2b(token.encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "big") % (1 << HASH_BITS)


@dataclass(frozen=True)
class CandidateFeatures:
    dense: tuple[float, ...]  # in DENSE order
    tokens: tuple[str, ...]  # hashed into buckets

    def vector(self) -> npt.NDArray[np.float64]:
        row = np.zeros(len(DENSE) + (1 << HASH_BITS), dtype=np.float64)
        row[: len(DENSE)] = self.dense
        if self.tokens:
            scale = 1.0 / math.sqrt(len(self.tokens))
            for token in self.tokens:
                row[len(DENSE) + _bucket(token)] += scale
        return row


def candidate_features(request: ProposerInput, analysis: Analysis, objective: Objective, evidence: Evidence,
                       others_taken: int) -> CandidateFeatures:
    """The features of one candidate, from the visitor's message alone (never the assistant's or a document's)."""
    if request.message.role is not Role.VISITOR:
        raise ScorerError("the learned scorer reads the visitor's own words only",
                          code="proposer.scorer.not_visitor")
    kind = objective.criterion.kind.value
    text = analysis.text
    message_words = analysis.words(0, len(text))
    value_words = evidence.value.split()
    sentence = analysis.sentence_at(evidence.pos)
    clause_start, clause_end = analysis.clause_at(evidence.pos)
    clause = analysis.words(clause_start, clause_end)[:_MAX_CLAUSE_WORDS]
    cues = objective_cues(objective)
    folded_words = set(message_words)
    asked = request.last_asked
    dense = [
        1.0,
        float(asked == objective.id),
        float(asked is not None and asked != objective.id),
        float(asked is None),
        min(evidence.rank, 5) / 5.0,
        float(sentence is not None and sentence.is_question),
        float(sentence is not None and sentence.seeks_offer),
        math.log1p(len(value_words)),
        math.log1p(len(message_words)),
        min(1.0, len(evidence.value) / max(1, len(request.message.text))),
        evidence.pos / max(1, len(text)),
        math.log1p(others_taken),
        math.log1p(request.turn),
        float(bool(cues & folded_words)),
        float(len(value_words) >= len(message_words) - 1),
        *(float(kind == k) for k in KINDS),
    ]
    tokens = [f"{kind}|c:{w}" for w in clause] + [f"{kind}|v:{w.lower()}" for w in value_words[:_MAX_CLAUSE_WORDS]]
    if message_words:
        tokens.append(f"{kind}|first:{message_words[0]}")
    tokens.append(f"{kind}|asked:{int(asked == objective.id)}|n:{min(len(message_words), 8)}")
    return CandidateFeatures(tuple(dense), tuple(tokens))


@dataclass(frozen=True)
class AnswerModel:
    weights: npt.NDArray[np.float64]
    digest: str  # sha256 of the model file's weights, for the audit and the rebuild check

    def probability(self, features: CandidateFeatures) -> float:
        z = float(features.vector() @ self.weights)
        return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))

    @staticmethod
    def from_json(data: dict[str, Any]) -> AnswerModel:
        if data.get("dense") != list(DENSE) or data.get("hash_bits") != HASH_BITS:
            raise ScorerError("the answer scorer's model file was built for other features",
                              code="proposer.scorer.model_mismatch")
        weights = np.asarray(data["weights"], dtype=np.float64)
        if weights.shape != (len(DENSE) + (1 << HASH_BITS),):
            raise ScorerError("the answer scorer's weights have the wrong length",
                              code="proposer.scorer.model_mismatch")
        return AnswerModel(weights, weights_digest(data["weights"]))


def weights_digest(weights: Sequence[float]) -> str:
    return hashlib.sha256(json.dumps(list(weights), separators=(",", ":")).encode()).hexdigest()


def load_model(path: Path = MODEL_PATH) -> AnswerModel:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ScorerError(f"cannot read the answer scorer's model file {path}: {exc}",
                          code="proposer.scorer.model_unreadable") from exc
    return AnswerModel.from_json(data)


@dataclass(frozen=True)
class ScorerSettings:
    """``rules/learned.json`` ``answer_scorer``: off unless enabled; vetoes only completions of these kinds."""

    enabled: bool
    thresholds: Mapping[str, float]  # criterion kind -> the score below which its completion is not proposed
    model_sha256: str = ""

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(self.thresholds)

    @staticmethod
    def from_rules(data: Mapping[str, Any] | None) -> ScorerSettings:
        section = (data or {}).get("answer_scorer") or {}
        return ScorerSettings(bool(section.get("enabled", False)),
                              {str(k): float(v) for k, v in (section.get("thresholds") or {}).items()},
                              str(section.get("model_sha256", "")))


class AnswerJudge:
    """What the proposer consults: keep this candidate or not. Veto only: it can never add a value."""

    def __init__(self, settings: ScorerSettings, model: AnswerModel | None = None) -> None:
        self.settings = settings
        self._model = model if model is not None else (load_model() if settings.enabled else None)
        if settings.enabled and self._model is not None and self._model.digest != settings.model_sha256:
            # the threshold was set for other weights: refuse rather than veto with a model nobody measured
            raise ScorerError("the answer scorer's model file is not the one rules/learned.json pins",
                              code="proposer.scorer.model_mismatch")

    def applies(self, objective: Objective) -> bool:
        return self.settings.enabled and objective.criterion.kind.value in self.settings.kinds

    def keep(self, request: ProposerInput, analysis: Analysis, objective: Objective, evidence: Evidence,
             others_taken: int) -> bool:
        if not self.settings.enabled or self._model is None:
            return True
        if request.message.role is not Role.VISITOR:  # checked before anything else: fail closed on any kind
            raise ScorerError("the learned scorer reads the visitor's own words only",
                              code="proposer.scorer.not_visitor")
        if not self.applies(objective) or evidence.value.startswith(DECLINED_PREFIX):
            return True  # a declined feature is the visitor's answer by spec/adr/0009's own rules, never vetoed
        features = candidate_features(request, analysis, objective, evidence, others_taken)
        return self._model.probability(features) >= self.settings.thresholds[objective.criterion.kind.value]


def feature_matrix(rows: Iterable[CandidateFeatures]) -> npt.NDArray[np.float64]:
    vectors = [row.vector() for row in rows]
    return np.stack(vectors) if vectors else np.zeros((0, len(DENSE) + (1 << HASH_BITS)))
