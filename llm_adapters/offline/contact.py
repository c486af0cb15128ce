"""Contact evidence: e-mail addresses and telephone numbers exactly as written.

Syntax is not judged here: 'buyer@invalid' or a two-digit 'number' is still proposed, and the contact validator
rejects it, so the audit record shows why the coordinate stayed incomplete.
"""

from __future__ import annotations

import re

from engine.kernel.validators.contact import CHANNEL_SEPARATOR
from engine.text import fold
from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.excluded import Spans
from llm_adapters.offline.memo import memo
from llm_adapters.offline.terms import replaced
from llm_adapters.offline.text_index import text_index

_DIGIT = re.compile(r"\d")
_PLAUSIBLE_EMAIL = re.compile(r"@[^@\s]+\.[^@\s.]{2,}$")
_E164_MAX_DIGITS = 15  # ITU-T E.164: the longest international telephone number
_WINDOW = 80  # characters around a number where its unit or replacement words stand (keeps the work linear)


def _self_allowed(ctx: ExtractionContext, sentence: Sentence) -> bool:
    """Contacts in a question count only when the visitor marks them as their own ('my email is ...?')."""
    if ctx.allowed(sentence.is_question, "contact"):
        return True
    return ctx.analysis.any_cue("self_contact", sentence.start, sentence.end)


def _emails(ctx: ExtractionContext) -> list[Evidence]:
    analysis = ctx.analysis
    found: list[Evidence] = []
    if "@" not in analysis.folded.source:
        return found  # no address (and no e-mail regex scan over long words)
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


def _email_spans(analysis: Analysis) -> Spans:
    """Source spans of e-mail addresses, found once per message (not once per telephone candidate)."""
    def build() -> Spans:
        if "@" not in analysis.folded.source:
            return Spans([])
        return Spans([m.span() for m in analysis.rules.email.finditer(analysis.folded.source)])
    return memo(analysis, "email_spans", build)


def _phones(ctx: ExtractionContext) -> list[Evidence]:
    analysis = ctx.analysis
    settings = analysis.rules.settings
    index = text_index(analysis)
    emails = _email_spans(analysis)
    found = []
    for match in analysis.rules.phone.finditer(analysis.folded.source):
        if emails.overlaps(match.start(), match.end()):
            continue
        pos = analysis.folded.to_folded(match.start())
        end = analysis.folded.to_folded(match.end())
        sentence = index.sentence_at(pos)
        if sentence is None or not _self_allowed(ctx, sentence) or index.blocked(pos):
            continue
        after = analysis.masked[end:min(sentence.end, end + _WINDOW)]
        if any(p.match(after) for p in analysis.rules.cue("number_unit_after")):
            continue
        digits = len(_DIGIT.findall(match.group()))
        clause_start, _ = index.clause_at(pos)
        cued = index.any_cue("phone", sentence.start, pos)
        threshold = settings.cued_phone_min_digits if cued else settings.phone_min_digits
        if ctx.lenient:
            threshold = min(threshold, settings.lenient_phone_min_digits)
        if digits < threshold or digits > _E164_MAX_DIGITS:
            continue  # too short for this context, or longer than any telephone number ('1 1 1 ... 1')
        if not cued and index.any_cue("budget", clause_start, sentence.end):
            continue  # "my budget is 600000": an amount, not a number to call
        window = Sentence(start=max(sentence.start, pos - _WINDOW), end=min(sentence.end, end + _WINDOW),
                          is_question=sentence.is_question, clauses=())
        found.append(Evidence(
            value=match.group().strip(), pos=pos, sentences=((sentence.start, sentence.end),),
            old=replaced(analysis, window, pos, end, ctx.correcting),
            rank=2 if digits >= settings.phone_min_digits else 1,
        ))
    return found


def _all_channels(found: list[Evidence]) -> Evidence | None:
    """Every plausible channel the visitor gives as their own, kept together ('jane@… or +44 7700 900123'):
    one value of several channels (spec/adr/0006), preferred over any single channel. A replaced value
    ('not 612…, use 699…') is not one of them."""
    kept: dict[str, Evidence] = {}
    for evidence in found:
        if not evidence.old and evidence.rank >= 2:
            kept.setdefault(fold(evidence.value), evidence)
    if len(kept) < 2:
        return None
    chosen = list(kept.values())
    sentences = tuple(dict.fromkeys(span for e in chosen for span in e.sentences))
    return Evidence(value=f"{CHANNEL_SEPARATOR} ".join(e.value for e in chosen), pos=chosen[0].pos,
                    sentences=sentences, rank=max(e.rank for e in chosen) + 1)


def extract_contact(ctx: ExtractionContext) -> list[Evidence]:
    channels = set(ctx.params.get("channels", ["email", "phone"]))
    found: list[Evidence] = []
    if "email" in channels:
        found.extend(_emails(ctx))
    if "phone" in channels:
        found.extend(_phones(ctx))
    found.sort(key=lambda e: e.pos)
    combined = _all_channels(found)
    return found if combined is None else [combined, *found]
