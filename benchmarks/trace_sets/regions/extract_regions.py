"""Extract the raw scraped records of three HAARRRvest food-bank directories into benchmark data files.

    .venv/bin/python benchmarks/trace_sets/regions/extract_regions.py /path/to/HAARRRvest.git

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
MARK = "Input Data:"


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def extract(repo: str, scraper: str) -> list[dict[str, object]]:
    names = [n for n in _git(repo, "ls-tree", "-r", "HEAD", "--name-only").split() if f"/scrapers/{scraper}/" in n]
    out = []
    for name in sorted(names):
        job = json.loads(_git(repo, "show", f"HEAD:{name}"))
        prompt = job["job"]["prompt"]
        record = json.loads(prompt[prompt.rindex(MARK) + len(MARK):].strip())
        if record.get("name"):
            out.append(record)
    return out


def main() -> int:
    repo = sys.argv[1]
    for region, scraper in REGIONS.items():
        records = extract(repo, scraper)
        target = HERE / region / "records.json"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{region}: {len(records)} records from {scraper}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
