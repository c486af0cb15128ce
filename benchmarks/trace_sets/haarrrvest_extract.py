"""Extraction and record readers shared by the HAARRRvest batch builders (regions4, regions5 and later batches).

Each batch's build script names its regions (state and counties) and its queries; this module holds what they had
copied from one another: reading the raw scraped records of one scrape day out of a HAARRRvest git directory,
writing them per region, the record readers their gold rules use (ZIP town/county, schedule slots, searchable text)
and writing the query sets.

Records: the raw scraped records of the ``food_helpline_org`` scraper of github.com/For-The-Greater-Good/HAARRRvest
(CC0 1.0), scrape date 2025-08-04, read at commit ffc449dc4 (the last commit holding those job files). Each job's
prompt ends with ``Input Data:`` and the scraped record as JSON; only that record is kept. A region is the records
whose state and whose ZIP's county (the ``zipcodes`` package's table) fall in the region's counties, in job-file
order, so indices are stable for the gold.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import zipcodes

SCRAPER, DAY = "food_helpline_org", "2025-08-04"
COMMIT = "ffc449dc4b0ca7eff9fef5c6b7d4a39f4339855b"
MARK = "Input Data:"
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# region -> (state, counties as the zipcodes package names them)
Regions = Mapping[str, tuple[str, Sequence[str]]]
# (gold, acceptable) record indices of one region for one query's constraints
Evaluate = Callable[[str, dict[str, Any]], tuple[list[int], list[int]]]


def zip_info(record: dict[str, Any]) -> dict[str, Any] | None:
    code = str((record.get("address") or {}).get("postal_code") or "")[:5]
    if len(code) != 5 or not code.isdigit():
        return None
    found: list[dict[str, Any]] = zipcodes.matching(code)  # type: ignore[no-untyped-call]  # the package has no hints
    return found[0] if found else None


def _git(repo: str, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-C", repo, *args], input=data, capture_output=True, check=True).stdout


def extract(repo: str, regions: Regions) -> dict[str, list[dict[str, Any]]]:
    """The named raw records of each region, in job-file order, from the HAARRRvest git directory ``repo``."""
    names = sorted(n for n in _git(repo, "ls-tree", "-r", COMMIT, "--name-only").decode().split()
                   if n.startswith(f"daily/{DAY}/scrapers/{SCRAPER}/"))
    blob = _git(repo, "cat-file", "--batch", data="".join(f"{COMMIT}:{n}\n" for n in names).encode())
    out: dict[str, list[dict[str, Any]]] = {r: [] for r in regions}
    at = 0
    for _ in names:
        end = blob.index(b"\n", at)
        size = int(blob[at:end].split()[2])
        job = json.loads(blob[end + 1:end + 1 + size])
        at = end + 1 + size + 1
        prompt = job["job"]["prompt"]
        record = json.loads(prompt[prompt.rindex(MARK) + len(MARK):].strip())
        if not record.get("name"):
            continue
        info = zip_info(record)
        state = (record.get("address") or {}).get("state_province")
        for region, (want_state, counties) in regions.items():
            if info and state == want_state and info["state"] == want_state and info["county"] in counties:
                out[region].append(record)
    return out


def main_extract(repo: str, regions: Regions, here: Path) -> int:
    """Write ``<here>/<region>/records.json`` for each region."""
    for region, records in extract(repo, regions).items():
        target = here / region / "records.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{region}: {len(records)} records from {SCRAPER} ({DAY})")
    return 0


def _hours(value: str) -> float | None:
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*", value or "")
    return int(m.group(1)) + int(m.group(2)) / 60 if m else None


def _text(r: dict[str, Any]) -> str:
    attrs = " | ".join(a.get("attribute_value", "") for a in r.get("service_attributes") or [])
    return f"{r.get('name', '')} | {r.get('description') or ''} | {attrs}"


def _towns(r: dict[str, Any]) -> set[str]:
    info = zip_info(r)
    raw = str((r.get("address") or {}).get("city") or "")
    return {t.lower() for t in (raw.strip(), info["city"] if info else "") if t}


def _slots(r: dict[str, Any]) -> list[tuple[int, float | None, float | None]]:
    out = []
    for row in r.get("regular_schedule") or []:
        if row.get("weekday") in DAYS:
            start, end = _hours(row.get("opens_at", "")), _hours(row.get("closes_at", ""))
            if start is not None and end is not None and end <= start:
                end += 24  # runs past midnight as written
            out.append((DAYS.index(row["weekday"]), start, end))
    return out


def build_queries(region: str, entries: Iterable[Sequence[Any]], evaluate: Evaluate) -> list[dict[str, Any]]:
    """Query items in the batch format: (family, text or turns, constraints[, forced expectation]).

    A forced ``clarify`` with constraints is an ambiguous name (its candidates are the records it matches); a
    forced ``clarify`` without constraints is a query with no place; ``outside`` names a town outside the directory.
    Otherwise the expectation is ``results`` when the gold is not empty, else ``no_match``.
    """
    out: list[dict[str, Any]] = []
    for entry in entries:
        family, text, c = entry[0], entry[1], entry[2]
        forced = entry[3] if len(entry) > 3 else None
        item: dict[str, Any] = {"id": f"{region}-{len(out) + 1:03d}", "family": family}
        item["turns" if isinstance(text, list) else "text"] = text
        gold: list[int] = []
        ok: list[int] = []
        if forced == "clarify" and c:
            item["candidates"] = evaluate(region, c)[0]
        elif forced is None and "outside" not in c:
            gold, ok = evaluate(region, c)
        expect = forced or ("results" if gold else "no_match")
        item.update({"expect": expect, "constraints": c, "gold": gold, "acceptable": ok})
        out.append(item)
    return out


def main(regions: Iterable[str], build: Callable[[str], dict[str, Any]], here: Path) -> int:
    """Write ``<here>/<region>.json`` (the query set ``build`` makes) for each region and print its counts."""
    for region in regions:
        payload = build(region)
        (here / f"{region}.json").write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        queries = payload["queries"]
        families: dict[str, int] = {}
        expects: dict[str, int] = {}
        for q in queries:
            families[q["family"]] = families.get(q["family"], 0) + 1
            expects[q["expect"]] = expects.get(q["expect"], 0) + 1
        print(f"{region}: {len(queries)} queries; {families}; {expects}")
    return 0
