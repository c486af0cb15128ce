"""``grace analytics``: how conversations go, per goal and period, as JSON or CSV (no personal value is opened)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.analytics.collect import collect
from engine.analytics.errors import AnalyticsError
from engine.analytics.report import FORMATS, selection, to_csv, to_json


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "analytics", help="conversations per goal and period: completed, abandoned, drop-off, refusals, "
                          "unanswered questions, corrections (JSON or CSV)")
    parser.add_argument("--db", required=True, help="database URL (sqlite:///file.db or postgresql://...)")
    parser.add_argument("--goal", help="goal spec id (all versions) or an exact ref such as real-estate/v3")
    parser.add_argument("--since", help="conversations started on or after YYYY-MM-DD (UTC) or an ISO-8601 time")
    parser.add_argument("--until", help="conversations started before YYYY-MM-DD (UTC) or an ISO-8601 time")
    parser.add_argument("--idle-hours", type=float, default=24.0,
                        help="an open conversation idle for longer counts as abandoned (default 24)")
    parser.add_argument("--goals", type=Path, action="append", default=[],
                        help="folder of published goal specs: objectives listed in approved order (repeatable)")
    parser.add_argument("--format", choices=FORMATS, help="default: from the --out suffix, else json")
    parser.add_argument("--out", type=Path, help="file to write (default: standard output)")
    parser.set_defaults(handler=_analytics)


def objective_order(folders: list[Path]) -> dict[str, list[str]]:
    """Goal id -> its objectives in approved order, from the latest published version of each spec."""
    from engine.goals.publication import list_published

    order: dict[str, tuple[int, list[str]]] = {}
    for folder in folders:
        for published in list_published(folder):
            spec = published.spec
            if spec.id not in order or published.version > order[spec.id][0]:
                order[spec.id] = (published.version, [o.id for o in spec.ordered()])
    return {goal: ids for goal, (_, ids) in order.items()}


def _analytics(args: argparse.Namespace) -> int:
    from engine.output_files import check_output_folder, write_text_atomic
    from engine.storage import open_store, sqlite_path

    chosen = selection(args.goal, args.since, args.until, args.idle_hours)
    fmt = args.format or ("csv" if args.out is not None and args.out.suffix.lower() == ".csv" else "json")
    if args.out is not None:
        check_output_folder(args.out)
    if not args.db.startswith(("postgresql://", "postgres://")) and not sqlite_path(args.db).is_file():
        raise AnalyticsError(f"no database file at {sqlite_path(args.db)}", code="analytics.db_missing")
    order = objective_order(args.goals)
    store = open_store(args.db)  # no audit key: nothing sealed can be opened, by construction
    try:
        reports = collect(store, chosen, order)
    finally:
        store.close()
    body = to_csv(reports) if fmt == "csv" else to_json(reports)
    if args.out is None:
        sys.stdout.write(body)
    else:
        write_text_atomic(args.out, body)
        print(f"wrote analytics of {sum(r.started for r in reports)} conversation(s) to {args.out} ({fmt})")
    return 0
