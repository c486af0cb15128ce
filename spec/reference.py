"""Executable reference model of one GRACE turn decision (SPEC.md D-1..D-9, I-1..I-12).

Written for clarity, not speed, and independently of ``engine/``: it is the oracle of the differential tests.
Validator outcomes are inputs here (each validator is specified and tested on its own); everything else —
acceptance order, transition, flags, rubric, utilities and selection — is computed from the definitions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any


@dataclass(frozen=True)
class RefObjective:
    id: str
    weight: Fraction
    kind: str


@dataclass(frozen=True)
class RefCandidate:
    type: str  # complete | correct | refuse | stop | uncertain | resume
    objective: str | None
    span_turn: int
    start: int
    end: int
    quote: str  # already Unicode-normalised
    validator_ok: bool = True


@dataclass(frozen=True)
class RefState:
    turn: int  # the current visitor turn (its message is in visitor_texts)
    bits: tuple[int, ...]
    visitor_texts: dict[int, str]  # turn -> stored (normalised) visitor message
    refused: frozenset[str] = frozenset()
    stopped: bool = False
    uncertain: dict[str, int] = field(default_factory=dict)
    ask_counts: dict[str, int] = field(default_factory=dict)
    last_asked: str | None = None
    ask_streak: int = 0  # consecutive latest assistant turns that asked last_asked


@dataclass(frozen=True)
class RefDecision:
    reasons: list[str]  # per candidate: "accepted" or the rejection reason code
    bits_after: tuple[int, ...]
    refused: frozenset[str]
    stopped: bool
    uncertain: dict[str, int]
    ask_utilities: list[Fraction]
    chosen: str | None


def _f(x: Any) -> Fraction:
    return Fraction(str(x))


def reason_for(c: RefCandidate, s: RefState, ids: list[str], accepted_valued: set[str]) -> str:
    """D-5: the first failing acceptance condition, in the order SPEC.md lists them."""
    if c.objective is not None and c.objective not in ids:
        return "command.unknown_objective"
    text = s.visitor_texts.get(c.span_turn) if c.span_turn <= s.turn else None
    if text is None or not (0 <= c.start < c.end <= len(text)):
        return "provenance.not_visitor_text"
    if text[c.start : c.end] != c.quote:
        return "provenance.span_mismatch"
    if c.type in ("complete", "correct") and c.objective in accepted_valued:
        return "command.duplicate_objective"
    if c.type == "complete" and s.bits[ids.index(c.objective or "")] == 1:
        return "transition.already_complete"
    if c.type in ("complete", "correct") and not c.validator_ok:
        return "validator.rejected"
    return "accepted"


def rubric(o: RefObjective, s: RefState, touched: set[str], uncertain: dict[str, int], company_question: bool,
           cfg: dict[str, Any]) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """D-8: the offline rubric levels (R, B, D, P)."""
    recent = o.id in uncertain and s.turn - uncertain[o.id] < int(cfg["uncertainty_cooldown_turns"])
    ignored = s.last_asked == o.id and o.id not in touched
    if recent:
        r = _f(cfg["relevance_uncertain_recent"])
    elif ignored:
        r = _f(cfg["relevance_same_question_unanswered"])
    else:
        r = _f(cfg["relevance_default"])
    b = _f(cfg["burden_default"])
    if recent:
        b = max(b, _f(cfg["burden_uncertain_recent"]))
    if ignored:
        b = max(b, _f(cfg["burden_same_question_unanswered"]))
    if company_question:
        b = max(b, _f(cfg["burden_visitor_asked_company_question"]))
    levels = cfg["repetition_by_times_asked"]
    d = _f(levels[min(s.ask_counts.get(o.id, 0), len(levels) - 1)])
    p = _f(cfg["privacy_by_kind"].get(o.kind, 0))
    return r, b, d, p


def decide(objectives: list[RefObjective], s: RefState, candidates: list[RefCandidate], policy: dict[str, Any],
           company_question: bool = False) -> RefDecision:
    """One turn: acceptance, s' = s ∨ z (eq. 10), flags, U_V (eq. 13) and ε-constrained selection (eq. 14)."""
    ids = [o.id for o in objectives]  # approved order
    bits = list(s.bits)
    refused = set(s.refused)
    stopped = s.stopped
    uncertain = dict(s.uncertain)
    reasons: list[str] = []
    valued: set[str] = set()
    touched: set[str] = set()
    for c in candidates:
        if c.objective is not None:
            touched.add(c.objective)
        reason = reason_for(c, s, ids, valued)
        reasons.append(reason)
        if reason != "accepted":
            continue
        if c.type in ("complete", "correct"):
            valued.add(c.objective or "")
            bits[ids.index(c.objective or "")] = 1  # monotone: only ever 0 -> 1
        elif c.type == "refuse":
            refused.add(c.objective or "")
        elif c.type == "uncertain":
            uncertain[c.objective or ""] = s.turn
        elif c.type == "stop":
            stopped = True
        elif c.type == "resume":
            if c.objective is None:
                stopped = False
            else:
                refused.discard(c.objective)
    coeff = policy["coefficients"]
    eps = _f(policy["epsilon"])
    utilities: list[Fraction] = []
    chosen: str | None = None
    best = Fraction(-1)
    limit = policy.get("max_consecutive_asks")
    rested = s.last_asked if limit is not None and s.last_asked is not None and s.ask_streak >= int(limit) else None
    for o in objectives:
        vetoed = stopped or o.id in refused or o.id == rested  # D-8: refusal, stop, or asked too often in a row
        if vetoed:
            u = _f(policy["vetoed_ask_utility"])
        else:
            r, b, d, p = rubric(o, s, touched, uncertain, company_question, policy["offline_rubric"])
            u = (_f(coeff["relevance"]) * r + _f(coeff["burden"]) * b + _f(coeff["repetition"]) * d
                 + _f(coeff["privacy"]) * p)
        utilities.append(u)
        feasible = bits[ids.index(o.id)] == 0 and not vetoed and u >= eps
        if feasible and o.weight > best:  # ties keep the earlier approved order
            best, chosen = o.weight, o.id
    return RefDecision(reasons, tuple(bits), frozenset(refused), stopped, uncertain, utilities, chosen)
