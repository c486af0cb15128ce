"""Vocabulary hints from the company corpus: place names it serves and which seed options it mentions.

Only cheap, transparent heuristics: a reviewer approves every derived vocabulary before publication.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from engine.compiler.compiler_rules import CorpusRules, MoneyRules
from engine.compiler.errors import CompileError
from engine.compiler.matching import keyword_regex
from engine.text import fold, normalize

_FRONT_MATTER = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
_LANGUAGE_LINE = re.compile(r"^language:\s*([a-z]{2,3})\s*$", re.MULTILINE)
_FILE_LANGUAGE = re.compile(r"\.([a-z]{2})\.[a-z0-9]+$")
_TOKEN = re.compile(r"\w[\w'’-]*|[^\w\s]|\n")  # a line break ends a name (JSON fields, headings)


@dataclass(frozen=True)
class CorpusDocument:
    path: str
    language: str | None
    text: str


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _document(path: Path, root: Path, raw: str) -> CorpusDocument:
    language = None
    match = _FILE_LANGUAGE.search(path.name)
    if match:
        language = match.group(1)
    text = raw
    if path.suffix in (".json", ".jsonl"):
        lines = raw.splitlines() if path.suffix == ".jsonl" else [raw]
        try:
            text = "\n".join(s for line in lines if line.strip() for s in _strings(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise CompileError(f"corpus file {path.relative_to(root)} is not valid JSON",
                               code="compile.corpus_unreadable") from exc
    else:
        front = _FRONT_MATTER.match(raw)
        if front:
            lang = _LANGUAGE_LINE.search(front.group(1))
            language = lang.group(1) if lang else language
            text = raw[front.end():]
    return CorpusDocument(path=path.relative_to(root).as_posix(), language=language, text=normalize(text))


def load_corpus(directory: Path, rules: CorpusRules) -> list[CorpusDocument]:
    """Read the corpus files (sorted, bounded by the rule limits); a missing folder is an input error."""
    if not directory.is_dir():
        raise CompileError(f"corpus folder {directory} does not exist", code="compile.corpus_missing")
    documents: list[CorpusDocument] = []
    total = 0
    for path in sorted(p for p in directory.rglob("*") if p.is_file() and p.suffix in rules.extensions):
        if len(documents) >= rules.max_files:
            break
        try:
            raw = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CompileError(f"corpus file {path.relative_to(directory)} is not readable UTF-8 text",
                               code="compile.corpus_unreadable") from exc
        total += len(raw.encode("utf-8"))
        if total > rules.max_bytes:
            break
        documents.append(_document(path, directory, raw))
    return documents


def _is_name(token: str, rules: CorpusRules) -> bool:
    return token[:1].isupper() and token not in rules.not_places and any(ch.isalpha() for ch in token)


def _read_name(tokens: list[str], i: int, connectors: set[str], rules: CorpusRules) -> tuple[str, int]:
    """The capitalised name starting at tokens[i] (connectors allowed inside), and the index after it."""
    parts = [tokens[i]]
    j = i + 1
    while j < len(tokens):
        if _is_name(tokens[j], rules):
            parts.append(tokens[j])
            j += 1
        elif tokens[j] in connectors and j + 1 < len(tokens) and _is_name(tokens[j + 1], rules):
            parts.extend(tokens[j:j + 2])
            j += 2
        else:
            break
    return " ".join(parts), j


def derive_places(documents: list[CorpusDocument], rules: CorpusRules) -> list[str]:
    """Capitalised names following a locative preposition ("in Vera", "en Málaga, Almería y Granada")."""
    prepositions = {tuple(p.split()) for ps in rules.locative_prepositions.values() for p in ps}
    connectors = {c for cs in rules.place_connectors.values() for c in cs}
    joiners = {j for js in rules.list_joiners.values() for j in js}
    counts: Counter[str] = Counter()
    first_seen: dict[str, int] = {}
    position = 0
    for document in documents:
        tokens = _TOKEN.findall(document.text)
        i = 0
        while i < len(tokens):
            width = next((len(p) for p in prepositions
                          if tuple(t.lower() for t in tokens[i:i + len(p)]) == p), 0)
            i += max(width, 1)
            if not width or i >= len(tokens) or not _is_name(tokens[i], rules):
                continue
            while i < len(tokens) and _is_name(tokens[i], rules):
                name, i = _read_name(tokens, i, connectors, rules)
                counts[name] += 1
                first_seen.setdefault(name, position + i)
                if i + 1 < len(tokens) and (tokens[i] == "," or tokens[i] in joiners):
                    i += 1
                else:
                    break
        position += len(tokens)
    kept = [n for n, c in counts.items() if c >= rules.min_place_mentions]
    return sorted(kept, key=lambda n: (-counts[n], first_seen[n]))[: rules.max_terms]


def derive_options(
    documents: list[CorpusDocument], seed_options: dict[str, dict[str, list[str]]]
) -> dict[str, dict[str, list[str]]]:
    """The seed options (rule order kept) that the corpus mentions in any language."""
    folded = "\n".join(fold(d.text) for d in documents)
    found: dict[str, dict[str, list[str]]] = {}
    for option, terms in seed_options.items():
        if any(re.search(keyword_regex(t, plural=True), folded) for ts in terms.values() for t in ts):
            found[option] = {lang: list(ts) for lang, ts in terms.items()}
    return found


# "- Idiomas: inglés, francés, alemán y chino mandarín." / "**Languages:** English, French and German"
_LABELLED = re.compile(r"^[ \t]*(?:[-*•][ \t]+)?\**([^\W\d_][^:\n*]{1,38}?)\**[ \t]*:\**[ \t]+(.+)$", re.MULTILINE)
_MAX_ITEM_WORDS = 3


def labelled_lists(documents: list[CorpusDocument], rules: CorpusRules) -> dict[str, list[str]]:
    """Lines of the corpus that list the company's own terms under a label ("Idiomas: inglés, francés, …"), by
    folded label: at least three short items without digits, split at commas and the last list joiner. A
    reviewer sees them as cues of the free-text objective whose head noun is the label."""
    joiners = {j for js in rules.list_joiners.values() for j in js}
    found: dict[str, list[str]] = {}
    for document in documents:
        for match in _LABELLED.finditer(document.text):
            body = match.group(2).strip().rstrip(".;")
            if any(ch.isdigit() for ch in body):
                continue
            parts = [p.strip() for p in body.split(",")]
            last = parts[-1].split()
            cut = next((k for k in range(len(last) - 1, 0, -1) if fold(last[k]) in joiners), None)
            if cut is not None:
                parts[-1:] = [" ".join(last[:cut]), " ".join(last[cut + 1:])]
            items = [p for p in parts if p]
            if len(items) < 3 or any(len(p.split()) > _MAX_ITEM_WORDS for p in items):
                continue
            label = fold(match.group(1).strip())
            found.setdefault(label, [])
            found[label] = list(dict.fromkeys([*found[label], *items]))[: rules.max_terms]
    return found


def _amount(text: str) -> Decimal | None:
    """'1,500' / '1.500' / '325.000' / '89' / '12.50' -> a number; separators followed by 3 digits group."""
    digits = re.sub(r"[.,](?=\d{3}(?:\D|$))", "", text.rstrip(".,")).replace(",", ".")
    try:
        return Decimal(digits)
    except InvalidOperation:
        return None


def smallest_price(documents: list[CorpusDocument], pattern: str) -> Decimal | None:
    """The smallest positive amount written with a currency in the corpus ("$45", "1.500 €")."""
    compiled = re.compile(pattern)
    amounts = [a for d in documents for m in compiled.finditer(fold(d.text))
               if (a := _amount(m.group(1) or m.group(2) or "")) is not None and a > 0]
    return min(amounts) if amounts else None


def min_amount(documents: list[CorpusDocument], rules: MoneyRules) -> Decimal:
    """A fraction of the smallest corpus price, rounded down to a power of ten (e.g. $45 -> 1, €1,500 -> 100)."""
    smallest = smallest_price(documents, rules.price_pattern)
    if smallest is None:
        return rules.min_amount_without_corpus
    scaled = smallest * rules.min_amount_ratio
    return Decimal(10) ** (len(str(int(scaled))) - 1) if scaled >= 1 else Decimal(0)
