"""The language an intent is written in, when the manager does not say (``grace compile`` without --language).

Counts the common words of each language listed in rules/compiler.json (``language_cues``) and picks the language
with the most, when it has at least ``MIN_CUES`` and strictly more than any other. Anything else is undecided and
the caller says which language it assumed. A detected language the compiler cannot write is refused as usual
(``compile.language_unsupported``), so a French intent is never read as English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.compiler.compiler_rules import CompilerRules
from engine.text import fold

MIN_CUES = 2
FALLBACK = "en"
_WORD = re.compile(r"[\w'’]+")


@dataclass(frozen=True)
class Detected:
    language: str
    decided: bool  # False: no language stood out; ``language`` is the fallback
    counts: dict[str, int]

    def note(self) -> str:
        found = ", ".join(f"{lang} {n}" for lang, n in sorted(self.counts.items(), key=lambda kv: -kv[1]))
        if self.decided:
            return f"intent language: {self.language} (detected from common words: {found}; --language overrides)"
        return (f"intent language: {self.language} assumed (no language stood out: {found}); pass --language if the "
                "intent is written in another language")


def detect_language(intent: str, rules: CompilerRules) -> Detected:
    words = [w.strip("'’") for w in _WORD.findall(fold(intent))]
    counts = {lang: sum(1 for w in words if w in set(cues)) for lang, cues in rules.language_cues.items()}
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    if ranked and ranked[0][1] >= MIN_CUES and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
        return Detected(ranked[0][0], True, counts)
    return Detected(FALLBACK, False, counts)
