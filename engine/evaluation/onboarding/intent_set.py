"""Score a set of manager intents (the format of benchmarks/companies/intents.json, plus ``expected_locale``,
``expected_not_objectives`` and ``expected_refusal``) against the offline compiler: kinds and locale.

    python -m engine.evaluation.onboarding.intent_set FILE [--rules DIR] [--out FILE]

Kinds: each intent is compiled with fixed locale flags (kinds are judged, not locale) and each expected part is
judged as ``tests/compiler/test_companies_intents.py`` does (an objective claiming the phrase, an acceptable kind,
granularity and options); an intent with ``expected_refusal`` is right only when compile refuses it with
``goalspec.prohibited_category``. Locale: each intent that does not expect a refusal is compiled again with no
locale flag; an expected field must come out equal, a field expected null must stay unset or compile must refuse
with ``compile.locale_missing`` / ``compile.locale_ambiguous``. Not-objectives: expected context, purpose and
scope phrases that became objectives anyway. The place reading alone: the locale resolved from the intent's words
with every setting needed and no objective compiled (a compile that stops for another reason hides it otherwise).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine.compiler.compiler_rules import DEFAULT_RULES_DIR, load_compiler_rules, load_governance_rules
from engine.compiler.deterministic import DeterministicCompiler
from engine.compiler.locale import Needs, resolve_locale
from engine.compiler.model import CompileInput
from engine.errors import GraceError
from engine.kernel.goal_models import GoalSpec
from engine.text import fold

FLAGS = {"currency": "EUR", "phone_region": "ES", "time_zone": "Europe/Madrid"}
LOCALE_CODES = ("compile.locale_missing", "compile.locale_ambiguous")
FIELDS = ("currency", "phone_region", "time_zone")
CRASHED = "compile.crashed"  # the compiler raised something other than a GraceError: a bug, counted as a failure


def part_problem(expected: dict[str, Any], spec: GoalSpec) -> str | None:
    """None when an objective collects the expected phrase with an acceptable kind and detail, else why not."""
    phrase = fold(expected["phrase"])
    found = [o for o in spec.ordered() if any(phrase in fold(p) or fold(p) in phrase
                                              for p in o.criterion.params.get("intent_phrases", []))]
    if not found:
        return f"missing '{expected['phrase']}'"
    objective = found[0]
    kind, params = objective.criterion.kind.value, objective.criterion.params
    if kind not in {expected["kind"], *expected.get("also_ok", [])}:
        return f"'{expected['phrase']}' is {kind}, expected {expected['kind']}"
    granularities = {expected.get("granularity"), *expected.get("also_ok_granularity", [])} - {None}
    if kind == "datetime" and expected["kind"] == "datetime" and granularities \
            and params.get("granularity") not in granularities:
        return f"'{expected['phrase']}' is {params.get('granularity')}, expected {expected.get('granularity')}"
    if kind in ("enumeration", "features") and expected.get("options"):
        vocabulary = spec.vocabularies.get(str(params.get("vocabulary")), {})
        terms = {fold(t) for o in vocabulary.get("options", {}).values() for ts in o.values() for t in ts}
        if not all(fold(option) in terms for option in expected["options"]):
            return f"'{expected['phrase']}' options {sorted(terms)}"
    return None


def _compile(compiler: DeterministicCompiler, intent: dict[str, Any], flags: dict[str, str]) -> GoalSpec:
    request = CompileInput(intent=intent["intent"], language=intent["language"], currency=flags.get("currency"),
                           phone_region=flags.get("phone_region"), time_zone=flags.get("time_zone"))
    return compiler.compile(request).spec


def score_kinds(compiler: DeterministicCompiler, intent: dict[str, Any]) -> dict[str, Any]:
    expected = intent.get("expected", [])
    refusal = intent.get("expected_refusal")
    try:
        spec = _compile(compiler, intent, FLAGS)
    except GraceError as exc:
        refused = refusal is not None and exc.code == "goalspec.prohibited_category"
        return {"parts": len(expected), "right": len(expected) if refused else 0, "whole": refused,
                "problems": [] if refused else [f"{exc.code}: {exc.message}"], "not_objectives": []}
    except Exception as exc:  # a compiler crash fails this intent, not the whole set
        return {"parts": len(expected), "right": 0, "whole": False, "not_objectives": [],
                "problems": [f"{CRASHED}: {type(exc).__name__}"]}
    if refusal is not None:
        return {"parts": len(expected), "right": 0, "whole": False, "not_objectives": [],
                "problems": [f"not refused: '{refusal.get('phrase')}' ({refusal.get('category')})"]}
    problems = [p for e in expected if (p := part_problem(e, spec)) is not None]
    right = len(expected) - len(problems)
    counts = {len(expected), *intent.get("also_ok_objective_counts", [])}
    if len(spec.objectives) not in counts:
        problems.append(f"{len(spec.objectives)} objectives for {len(expected)} expected")
    claimed = [fold(p) for o in spec.ordered() for p in o.criterion.params.get("intent_phrases", [])]
    wrongly = [n for n in intent.get("expected_not_objectives", [])
               if any(fold(str(n)) in c or (c in fold(str(n)) and len(c) > 3) for c in claimed)]
    return {"parts": len(expected), "right": right, "whole": not problems, "problems": problems,
            "not_objectives": wrongly}


def locale_alone(compiler: DeterministicCompiler, intent: dict[str, Any]) -> bool:
    """Whether the locale the intent's words give is right with every setting needed and nothing else compiled:
    what the place reading gets, apart from a compile that stops earlier (too many objectives, a refusal)."""
    wanted = intent.get("expected_locale") or {}
    needs = Needs(currency=["-"], phone_region=["-"], time_zone=["-"])
    try:
        locale = resolve_locale(currency=None, phone_region=None, time_zone=None, intent=intent["intent"], corpus=[],
                                needs=needs, rules=compiler.rules.locale,
                                not_places=compiler.rules.corpus.not_places, language=intent["language"])
    except GraceError as exc:
        return exc.code in LOCALE_CODES and not all(wanted.get(f) is not None for f in FIELDS)
    except Exception:  # a crash of the place reading: wrong, and counted, never the end of the run
        return False
    return all(getattr(locale, f) == wanted.get(f) for f in FIELDS if wanted.get(f) is not None) \
        and any(wanted.get(f) is not None for f in FIELDS)


def score_locale(compiler: DeterministicCompiler, intent: dict[str, Any]) -> dict[str, Any] | None:
    if intent.get("expected_refusal") is not None:
        return None
    wanted = intent.get("expected_locale") or {}
    expected = {f: wanted.get(f) for f in FIELDS}
    names_place = any(v is not None for v in expected.values())
    try:
        locale = _compile(compiler, intent, {}).locale
    except GraceError as exc:
        right = exc.code in LOCALE_CODES and not all(v is not None for v in expected.values())
        return {"names_place": names_place, "right": right, "got": f"{exc.code}: {exc.message}",
                "alone": locale_alone(compiler, intent)}
    except Exception as exc:
        return {"names_place": names_place, "right": False, "got": f"{CRASHED}: {type(exc).__name__}",
                "alone": locale_alone(compiler, intent)}
    got = {f: getattr(locale, f) if locale is not None else None for f in FIELDS}
    right = all(got[f] == v if v is not None else got[f] is None for f, v in expected.items())
    return {"names_place": names_place, "right": right, "got": got, "expected": expected,
            "alone": locale_alone(compiler, intent)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--rules", type=Path, default=DEFAULT_RULES_DIR)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    intents = json.loads(args.file.read_text(encoding="utf-8"))["intents"]
    compiler = DeterministicCompiler(load_compiler_rules(args.rules), load_governance_rules(args.rules))
    report = {i["id"]: {"language": i["language"], "kinds": score_kinds(compiler, i),
                        "locale": score_locale(compiler, i)} for i in intents}
    parts = sum(r["kinds"]["parts"] for r in report.values())
    right = sum(r["kinds"]["right"] for r in report.values())
    whole = sum(1 for r in report.values() if r["kinds"]["whole"])
    located = [r["locale"] for r in report.values() if r["locale"] is not None]
    placed = [loc for loc in located if loc["names_place"]]
    unplaced = [loc for loc in located if not loc["names_place"]]
    leaks = sum(len(r["kinds"]["not_objectives"]) for r in report.values())
    for name, r in report.items():
        issues = r["kinds"]["problems"] + [f"not an objective, but is: '{n}'" for n in r["kinds"]["not_objectives"]]
        if r["locale"] is not None and not r["locale"]["right"]:
            issues.append(f"locale: got {r['locale']['got']}, expected {r['locale'].get('expected')}")
        if issues:
            print(f"{name} ({r['language']}): " + "; ".join(issues))
    share = 100 * right / max(parts, 1)
    print(f"\n{len(intents)} intents: parts kept with the right kind {right}/{parts} ({share:.1f}%), "
          f"intents whole {whole}/{len(intents)}")
    print(f"locale right for intents naming a place: {sum(x['right'] for x in placed)}/{len(placed)}; "
          f"for intents naming none (compile must not guess): {sum(x['right'] for x in unplaced)}/{len(unplaced)}")
    print(f"  the place reading alone (every setting needed, nothing else compiled), intents naming a place: "
          f"{sum(x['alone'] for x in placed)}/{len(placed)}")
    print(f"context, purpose or scope phrases that became objectives: {leaks}")
    for language in sorted({r["language"] for r in report.values()}):
        mine = [r for r in report.values() if r["language"] == language]
        p = sum(r["kinds"]["parts"] for r in mine)
        k = sum(r["kinds"]["right"] for r in mine)
        print(f"  {language}: parts {k}/{p}, intents whole {sum(1 for r in mine if r['kinds']['whole'])}/{len(mine)}")
    if args.out is not None:
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
