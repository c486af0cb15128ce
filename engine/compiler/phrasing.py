"""Writing an objective from the manager's words: question, name, description, id, cues and term variants.

Everything language-specific comes from ``phrasing`` in rules/compiler.json: the question template, how a
third-person reference to the visitor becomes the second person ("their budget" -> "your budget", "el nombre
del cliente" -> "su nombre"), stopwords and the suffix rules for singular/plural variants.
"""

from __future__ import annotations

import re

from engine.compiler.compiler_rules import CompilerRules, PhrasingRules
from engine.compiler.matching import compile_patterns
from engine.compiler.textmap import rewrite
from engine.text import fold

_WORD = re.compile(r"[\w'’-]+")


def _roles(rules: PhrasingRules, language: str) -> str:
    return "|".join(re.escape(r) for r in sorted(rules.roles.get(language, []), key=len, reverse=True))


_COMPILED: dict[tuple[int, str, str], tuple[PhrasingRules, tuple[tuple[re.Pattern[str], str], ...]]] = {}


def _rewrites(rules: PhrasingRules, table: str, language: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    key = (id(rules), table, language)
    cached = _COMPILED.get(key)
    if cached is not None and cached[0] is rules:
        return cached[1]
    pairs = getattr(rules, table).get(language, [])
    sources = [source.replace("{roles}", _roles(rules, language)) for source, _ in pairs]
    compiled = compile_patterns(sources, f"compiler.json phrasing.{table}/{language}")
    result = tuple((pattern, replacement) for pattern, (_, replacement) in zip(compiled, pairs, strict=True))
    _COMPILED[key] = (rules, result)
    return result


def second_person(text: str, language: str, rules: PhrasingRules) -> str:
    """The manager's phrase addressed to the visitor ("which provider they have" -> "which provider you have")."""
    result, changed = rewrite(text, _rewrites(rules, "person", language))
    if changed:
        result, _ = rewrite(result, _rewrites(rules, "possessive_after_role", language))
    return result.strip(" ,")


def question(text: str, language: str, rules: PhrasingRules, options: list[str] | None = None,
             article: str = "") -> str:
    """A natural question from the phrase: the language's template; a bare noun gets the manager's definite
    article back ("el motivo de la consulta"), else "your"/"su" ("your ZIP code", "sus asignaturas")."""
    phrase = text.strip()
    if phrase[:1].isupper() and not phrase[1:2].isupper():
        phrase = phrase[0].lower() + phrase[1:]
    phrase = second_person(f"{article} {phrase}" if article else phrase, language, rules)
    words = fold(phrase).split()
    starts = _question_starts(rules, language)
    if words and words[0] not in rules.keep_start.get(language, []) and not any(p.match(fold(phrase)) for p in starts):
        # "reason for your visit", "star rating you want": the visitor is already named -> "the ...".
        owned = any(w in rules.owner_words.get(language, []) for w in words) or any(
            f"{' '.join(words)} ".startswith(f"{start} ") for start in rules.definite_starts.get(language, []))
        prefix = rules.bare_prefix_when_owned if owned else (
            rules.bare_prefix_plural if is_plural(words[0], language, rules) else rules.bare_prefix)
        phrase = prefix[language] + phrase
    if options:
        template = rules.question_with_options[language]
        return template.replace("{phrase}", phrase).replace("{options}", join_options(options, language))
    return rules.question[language].replace("{phrase}", phrase)


def _question_starts(rules: PhrasingRules, language: str) -> list[re.Pattern[str]]:
    key = (id(rules), "question_starts", language)
    cached = _COMPILED.get(key)
    if cached is not None and cached[0] is rules:
        return [p for p, _ in cached[1]]
    compiled = compile_patterns(rules.question_starts.get(language, []),
                                f"compiler.json phrasing.question_starts/{language}")
    _COMPILED[key] = (rules, tuple((p, "") for p in compiled))
    return compiled


def join_options(options: list[str], language: str) -> str:
    word = {"es": "o"}.get(language, "or")
    if len(options) < 2:
        return "".join(options)
    if language == "es" and fold(options[-1]).startswith(("o", "ho")):
        word = "u"  # Spanish "o" becomes "u" before an o sound (grammar, not policy)
    return f"{', '.join(options[:-1])} {word} {options[-1]}"


def name(text: str) -> str:
    text = text.strip(" ,.")
    return (text[:1].upper() + text[1:])[:120] or "Objective"


def content_words(text: str, language: str, rules: CompilerRules) -> list[str]:
    """Words of the phrase that name its topic: no stopwords, no references to the visitor, no pronouns."""
    stop = set(rules.phrasing.stopwords.get(language, [])) | {
        w for ws in rules.phrasing.stopwords.values() for w in ws}
    roles = {r for rs in rules.phrasing.roles.values() for r in rs}
    words = []
    for word in _WORD.findall(text.lower()):
        word = re.sub(r"['’]s?$", "", word)
        folded = fold(word)
        if len(folded) > 1 and folded not in stop and folded not in roles and not folded.isdigit():
            words.append(word)
    return list(dict.fromkeys(words))


def slug_id(text: str, language: str, rules: CompilerRules) -> str:
    """An objective id from the manager's words: the first run of topic words, through connectors such as
    "of"/"de" ("reason for visit", "length_of_stay"), snake_case."""
    phrasing = rules.phrasing
    stop = {w for ws in phrasing.stopwords.values() for w in ws}
    roles = {r for rs in phrasing.roles.values() for r in rs}
    connectors = set(phrasing.id_connectors.get(language, []))
    skips = set(phrasing.id_skips.get(language, [])) | roles
    words = [re.sub(r"['’]s?$", "", w) for w in _WORD.findall(fold(text))]
    words = [w for w in words if w]
    start = next((i for i, w in enumerate(words) if w not in stop and w not in roles), None)
    run: list[str] = []
    if start is not None:
        i = start
        while i < len(words) and len(run) < phrasing.max_id_words:
            word = words[i]
            if word not in stop and word not in roles:
                run.append(word)
                i += 1
                continue
            j = i + 1 if word in connectors else i
            while j < len(words) and words[j] in skips:
                j += 1
            if word in connectors and j < len(words) and words[j] not in stop:
                run.append(word)
                i = j
                continue
            break
    while run and run[-1] in connectors:
        run.pop()  # "psicólogo, psiquiatra o" -> no dangling "o"
    run = run or [w for w in words if w not in roles][: phrasing.max_id_words]
    slug = re.sub(r"[^a-z0-9]+", "_", "_".join(run)).strip("_")
    if not slug:
        slug = "answer"
    return (slug if slug[0].isalpha() else f"q_{slug}")[:64].rstrip("_")


def variants(term: str, language: str, rules: PhrasingRules, *, plural: bool = True) -> list[str]:
    """The term and its singular (and, for nouns, plural) forms (last word inflected), the term first."""
    inflection = rules.inflection.get(language)
    found = [term]
    if inflection is None or not term or not term[-1:].isalpha():
        return found
    head, _, last = term.rpartition(" ")
    prefix = f"{head} " if head else ""
    lowered = last.lower()
    for table in (inflection.singular, inflection.plural) if plural else (inflection.singular,):
        for suffix, replacement in table:
            if lowered.endswith(suffix):
                if suffix == replacement:
                    break  # the word already has this form
                inflected = last[: len(last) - len(suffix)] + replacement
                if len(inflected) >= rules.min_inflected_length:
                    found.append(prefix + inflected)
                break
    return list(dict.fromkeys(found))


def cue_terms(texts: list[str], language: str, rules: CompilerRules, limit: int = 16) -> list[str]:
    """Topic terms for routing refusals and free-text statements: content words and their variants."""
    terms: list[str] = []
    for text in texts:
        words = content_words(text, language, rules)
        for index, word in enumerate(words):
            # Only the head noun (last topic word) gets a plural: "monthly budget" must not yield "monthlies".
            terms.extend(variants(word, language, rules.phrasing, plural=index == len(words) - 1))
    return list(dict.fromkeys(terms))[:limit]


def head_noun(text: str, rules: CompilerRules) -> str | None:
    """The last word of the phrase's first run of topic words ("which extra services they need" -> services)."""
    stop = {w for ws in rules.phrasing.stopwords.values() for w in ws}
    roles = {r for rs in rules.phrasing.roles.values() for r in rs}
    run: list[str] = []
    for word in _WORD.findall(fold(text)):
        if word in stop or word in roles:
            if run:
                break
            continue
        run.append(word)
    return run[-1] if run else None


def is_plural(word: str, language: str, rules: PhrasingRules) -> bool:
    return len(variants(word, language, rules, plural=False)) > 1
