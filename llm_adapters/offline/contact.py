"""Contact evidence: e-mail addresses and telephone numbers exactly as written.

Syntax is not judged here: 'buyer@invalid' or a two-digit 'number' is still proposed, and the contact validator
rejects it, so the audit record shows why the coordinate stayed incomplete.
"""

from __future__ import annotations

import re

from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.terms import replaced

_DIGIT = re.compile(r"\d")
_PLAUSIBLE_EMAIL = re.compile(r"@[^@\s]+\.[^@\s.]{2,}$")


def _self_allowed(ctx: ExtractionContext, sentence: Sentence) -> bool:
    """Contacts in a question count only when the visitor marks them as their own ('my email is ...?')."""
    if ctx.allowed(sentence.is_question, "contact"):
        return True
    return ctx.analysis.any_cue("self_contact", sentence.start, sentence.end)


def _emails(ctx: ExtractionContext) -> list[Evidence]:
    analysis = ctx.analysis
    found = []
    for match in analysis.rules.email.finditer(analysis.folded.source):
        pos = analysis.folded.to_folded(match.start())
        end = analysis.folded.to_folded(match.end())
        sentence = analysis.sentence_at(pos)
        if sentence is None or not _self_allowed(ctx, sentence) or analysis.blocked(pos):
            continue
        value = match.group().rstrip(".")
        found.append(Evidence(
            value=value, pos=pos, sentences=((sentence.start, sentence.end),),
            old=replaced(analysis, sentence, pos, end, ctx.correcting),
            rank=2 if _PLAUSIBLE_EMAIL.search(value) else 1,
        ))
    return found


def _inside_email(analysis: Analysis, start: int, end: int) -> bool:
    return any(m.start() < end and start < m.end() for m in analysis.rules.email.finditer(analysis.folded.source))


def _phones(ctx: ExtractionContext) -> list[Evidence]:
    analysis = ctx.analysis
    settings = analysis.rules.settings
    found = []
    for match in analysis.rules.phone.finditer(analysis.folded.source):
        if _inside_email(analysis, match.start(), match.end()):
            continue
        pos = analysis.folded.to_folded(match.start())
        end = analysis.folded.to_folded(match.end())
        sentence = analysis.sentence_at(pos)
        if sentence is None or not _self_allowed(ctx, sentence) or analysis.blocked(pos):
            continue
        after = analysis.masked[end:sentence.end]
        if any(p.match(after) for p in analysis.rules.cue("number_unit_after")):
            continue
        digits = len(_DIGIT.findall(match.group()))
        clause_start, _ = analysis.clause_at(pos)
        cued = analysis.any_cue("phone", sentence.start, pos)
        threshold = settings.cued_phone_min_digits if cued else settings.phone_min_digits
        if ctx.lenient:
            threshold = min(threshold, settings.lenient_phone_min_digits)
        if digits < threshold:
            continue
        if not cued and analysis.any_cue("budget", clause_start, sentence.end):
            continue  # "my budget is 600000": an amount, not a number to call
        found.append(Evidence(
            value=match.group().strip(), pos=pos, sentences=((sentence.start, sentence.end),),
            old=replaced(analysis, sentence, pos, end, ctx.correcting),
            rank=2 if digits >= settings.phone_min_digits else 1,
        ))
    return found


def extract_contact(ctx: ExtractionContext) -> list[Evidence]:
    channels = set(ctx.params.get("channels", ["email", "phone"]))
    found: list[Evidence] = []
    if "email" in channels:
        found.extend(_emails(ctx))
    if "phone" in channels:
        found.extend(_phones(ctx))
    return sorted(found, key=lambda e: e.pos)
