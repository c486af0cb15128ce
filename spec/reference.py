"""Executable reference model of one GRACE turn decision (SPEC.md D-1..D-10, I-1..I-14).

Written for clarity, not speed, and independently of ``engine/``: it is the oracle of the differential tests.
Validator outcomes and the language-data attribution of a contact value (third party, refused) are inputs here
(each is specified and tested on its own); everything else — contact provenance against company and assistant
text, look-alike writing, acceptance order, transition, flags, rubric, utilities and selection — is computed from
the definitions.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import phonenumbers
from confusable_homoglyphs import confusables


@dataclass(frozen=True)
class RefObjective:
    id: str
    weight: Fraction
    kind: str
    region: str = "ES"  # telephone region of a contact objective


@dataclass(frozen=True)
class RefCandidate:
    type: str  # complete | correct | refuse | stop | uncertain | resume
    objective: str | None
    span_turn: int
    start: int
    end: int
    quote: str  # already Unicode-normalised
    validator_ok: bool = True
    value: str = ""
    normalized: str | None = None  # the validator's normalised value
    third_party: bool = False  # D-10 (c): the value's clause attributes it to someone else (language data)
    refused_marker: bool = False  # D-10 (c): the value's clause refuses or negates it (language data)
    others_wish: bool = False  # D-13: the span's clause states the value as another person's wish (language data)


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
    company_texts: tuple[str, ...] = ()  # corpus, directory, published contact details
    shown_texts: tuple[str, ...] = ()  # earlier assistant messages and passages retrieved this turn
    phone_min_digits: int = 7
    wish_kinds: frozenset[str] = frozenset()  # D-13: kinds whose values are judged for another person's wish


@dataclass(frozen=True)
class RefDecision:
    reasons: list[str]  # per candidate: "accepted" or the rejection reason code
    bits_after: tuple[int, ...]
    refused: frozenset[str]
    stopped: bool
    uncertain: dict[str, int]
    ask_utilities: list[Fraction]
    chosen: str | None
    business_utilities: list[Fraction] = field(default_factory=list)  # U_B per ASK (eq. 12)


def _f(x: Any) -> Fraction:
    return _fraction(str(x))


@functools.lru_cache(maxsize=4096)
def _fraction(text: str) -> Fraction:  # memoised only because the differential tests call it ~10^5 times
    return Fraction(text)


_SEPARATORS = set(" \t.-/()\u00a0")
_PHONE_ALLOWED = set("0123456789 +-.()/")


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _looks_latin(text: str) -> str:
    """Case-folded text with every character that imitates an ASCII letter replaced by that letter."""
    out = []
    for ch in _nfkc(text).casefold():
        if ch.isascii():
            out.append(ch)
            continue
        glyphs = [g["c"] for e in confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin"]) or []
                  for g in e["homoglyphs"] if g["c"].isascii() and len(g["c"]) == 1]
        out.append(glyphs[0].lower() if glyphs else ch)
    return "".join(out)


def _digit_runs(text: str) -> list[str]:
    """Maximal runs of digits where at most three separator characters stand between two digits."""
    runs, current, gap = [], "", ""
    for ch in _nfkc(text):
        if ch.isdigit() and ch.isascii():
            current, gap = current + ch, ""
        elif current and ch in _SEPARATORS and len(gap) < 3:
            gap += ch
        else:
            if current:
                runs.append((current, gap))
            current, gap = "", ""
    if current:
        runs.append((current, gap))
    return [digits for digits, _ in runs]


def _phone_forms(value: str, region: str) -> set[str]:
    forms = {"".join(ch for ch in _nfkc(value) if ch.isdigit())}
    try:
        number = phonenumbers.parse(_nfkc(value), region)
        forms |= {str(number.national_number),
                  phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)[1:]}
    except phonenumbers.NumberParseException:
        pass
    return {f for f in forms if f}


def _text_has_contact(texts: tuple[str, ...], value: str, region: str, min_digits: int) -> bool:
    """D-10 (a)/(b): ``value`` stands in one of ``texts`` (e-mails look-alike-folded; phones by digits)."""
    if "@" in value:
        key = _looks_latin(value.strip().strip(".<>()[]\"'"))
        for text in texts:
            for token in re.split(r"[^\w.+%@-]+", _nfkc(text)):
                token = token.strip(".")
                if "@" not in token:
                    continue
                if token.startswith("@") and _looks_latin(token[1:]) == key.rsplit("@", 1)[-1]:
                    return True
                if _looks_latin(token) == key:
                    return True
        return False
    forms = [f for f in _phone_forms(value, region) if len(f) >= min_digits]
    for text in texts:
        for run in _digit_runs(text):
            if len(run) < 6:
                continue
            candidates = {run} | _phone_forms(run, region)
            if any(form in c for form in forms for c in candidates):
                return True
    return False


def _look_alike(value: str) -> bool:
    """D-10 (d): an e-mail whose letters come from more than one script, or a phone with other characters."""
    text = _nfkc(value)
    if "@" in text:
        scripts = {unicodedata.name(ch, "?").split(" ")[0] for ch in text if ch.isalpha()}
        return len(scripts) > 1
    return any(ch not in _PHONE_ALLOWED for ch in text)


def contact_reason(c: RefCandidate, o: RefObjective, s: RefState) -> str | None:
    """D-10: why a contact value is not the visitor's own, in the order SPEC.md lists the reasons. A value of
    several channels separated by ';' is judged channel by channel: one failing channel rejects it."""
    values = [v.strip() for v in {*c.value.split(";"), *(c.normalized or c.value).split(";")} if v.strip()]
    if any(_text_has_contact(s.company_texts, v, o.region, s.phone_min_digits) for v in values):
        return "provenance.company_contact"
    if any(_text_has_contact(s.shown_texts, v, o.region, s.phone_min_digits) for v in values):
        return "provenance.assistant_echo"
    if any(_look_alike(v) for v in values):
        return "provenance.confusable"
    if c.third_party:
        return "provenance.third_party"
    if c.refused_marker:
        return "provenance.refused"
    return None


def reason_for(c: RefCandidate, s: RefState, ids: list[str], accepted_valued: set[str],
               objectives: dict[str, RefObjective] | None = None) -> str:
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
    objective = (objectives or {}).get(c.objective or "")
    if c.type in ("complete", "correct") and objective is not None and objective.kind == "contact":
        return contact_reason(c, objective, s) or "accepted"
    if (c.type in ("complete", "correct") and objective is not None and objective.kind in s.wish_kinds
            and c.others_wish):
        return "provenance.others_wish"
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
        reason = reason_for(c, s, ids, valued, {o.id: o for o in objectives})
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
    # eq. 12: U_B(ASK_i) is the published weight of an objective still open after the update, 0 otherwise
    business = [o.weight if bits[ids.index(o.id)] == 0 else Fraction(0) for o in objectives]
    return RefDecision(reasons, tuple(bits), frozenset(refused), stopped, uncertain, utilities, chosen, business)


def move(objectives: list[RefObjective], d: RefDecision, policy: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """D-11: how the turn moves the conversation: ("ASK", (a*,)), ("PENDING", named ids) or ("NONE", ())."""
    if d.chosen is not None:
        return "ASK", (d.chosen,)
    rule = policy.get("no_silent_stall")
    if d.stopped or rule is None:
        return "NONE", ()
    ids = [o.id for o in objectives]
    open_ = [o for o in objectives if d.bits_after[ids.index(o.id)] == 0 and o.id not in d.refused]
    # weight descending, approved order on ties (the order of eq. 14); sorted() is stable
    ranked = sorted(open_, key=lambda o: -o.weight)
    named = tuple(o.id for o in ranked[: int(rule["max_named"])])
    return ("PENDING", named) if named else ("NONE", ())


DECLINED = "no:"  # D-13: a declined item of a features value


def feature_reading(history: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """D-13: (claimed, declined) options of a features objective, read from its latest accepted value."""
    if not history:
        return frozenset(), frozenset()
    claimed, declined = set(), set()
    for item in history[-1].split(";"):
        item = item.strip()
        if item.startswith(DECLINED):
            declined.add(item[len(DECLINED):].strip())
        elif item:
            claimed.add(item.split("=")[0].strip())
    return frozenset(claimed), frozenset(declined)
