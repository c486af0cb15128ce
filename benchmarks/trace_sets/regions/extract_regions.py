"""Extract the raw scraped records of three HAARRRvest food-bank directories into benchmark data files.

    .venv/bin/python benchmarks/trace_sets/regions/extract_regions.py /path/to/HAARRRvest.git
    .venv/bin/python benchmarks/trace_sets/regions/extract_regions.py /path/to/HAARRRvest.git --regions2
    .venv/bin/python benchmarks/trace_sets/regions/extract_regions.py /path/to/HAARRRvest.git --regions3

``--regions2`` writes the second batch (benchmarks/trace_sets/regions2/README.md): three scrapers whose job files
were removed from HEAD, read at commit ffc449dc4 (merge of the 2025-08-06 data update), one scrape date each.
``--regions3`` writes the third batch (benchmarks/trace_sets/regions3/README.md): two scrapers read at ffc449dc4 and
one at 14455b81f (HEAD of the stored snapshot, data update 2025-08-09), one scrape date each.

Source: github.com/For-The-Greater-Good/HAARRRvest (CC0 1.0), commit 14455b81f (data update 2025-08-09).
Each file ``daily/<date>/scrapers/<scraper>/<job>.json`` is one job whose prompt ends with ``Input Data:`` and the
scraped record as JSON; only that record is kept (not the LLM output, not the prompt). Scraper summary records
(no ``name``) are dropped; records stay in job-file order, so a record's index is stable for the gold labels.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REGIONS = {
    "gulf_coast": "feeding_the_gulf_coast_al",
    "western_mass": "food_bank_of_western_massachusetts_ma",
    "nw_ohio": "toledo_northwestern_ohio_food_bank_oh",
}
# region -> (scraper, scrape date); read at COMMIT2, the last commit holding these job files
REGIONS2 = {
    "nw_nc": ("second_harvest_food_bank_of_northwest_north_carolina_nc", "2025-08-06"),
    "southern_co": ("care_and_share_food_locator", "2025-07-23"),
    "mercer_nj": ("mercer_food_finder", "2025-08-06"),
}
COMMIT2 = "ffc449dc4b0ca7eff9fef5c6b7d4a39f4339855b"
COMMIT3 = "14455b81f178f9db6fc99e095d8dad4971135360"  # HEAD when the third batch was taken (data update 2025-08-09)
# region -> (scraper, scrape date, commit)
REGIONS3 = {
    "western_wa": ("food_lifeline_wa", "2025-08-06", COMMIT2),
    "sf_marin": ("sfmarin_food_bank_ca", "2025-08-08", COMMIT3),
    "hawaii_island": ("the_food_basket_inc_hi", "2025-08-06", COMMIT2),
}
MARK = "Input Data:"


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def extract(repo: str, scraper: str, rev: str = "HEAD", day: str | None = None) -> list[dict[str, object]]:
    names = [n for n in _git(repo, "ls-tree", "-r", rev, "--name-only").split() if f"/scrapers/{scraper}/" in n
             and (day is None or n.startswith(f"daily/{day}/"))]
    out = []
    for name in sorted(names):
        job = json.loads(_git(repo, "show", f"{rev}:{name}"))
        prompt = job["job"]["prompt"]
        record = json.loads(prompt[prompt.rindex(MARK) + len(MARK):].strip())
        if record.get("name"):
            out.append(record)
    return out


def main() -> int:
    repo = sys.argv[1]
    second = "--regions2" in sys.argv[2:]
    third = "--regions3" in sys.argv[2:]
    jobs: dict[str, tuple[str, str, str | None]]
    if third:
        jobs = {r: (s, rev, d) for r, (s, d, rev) in REGIONS3.items()}
    elif second:
        jobs = {r: (s, COMMIT2, d) for r, (s, d) in REGIONS2.items()}
    else:
        jobs = {r: (s, "HEAD", None) for r, s in REGIONS.items()}
    folder = HERE.parent / ("regions3" if third else "regions2" if second else "regions")
    for region, (scraper, rev, day) in jobs.items():
        records = extract(repo, scraper, rev, day)
        target = folder / region / "records.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{region}: {len(records)} records from {scraper}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
