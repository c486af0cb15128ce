"""``grace leads export | dead-letters | requeue``: the company's authorised paths for collected values."""

from __future__ import annotations

import argparse
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import structlog

from engine.leads.errors import LeadExportError
from engine.leads.export import FORMATS, LeadFilter, collect_leads, parse_day, to_csv, to_json
from engine.leads.outbox import Outbox
from engine.output_files import check_output_folder, write_text_atomic
from engine.storage import open_store, sqlite_path

log = structlog.get_logger("grace.leads")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("leads", help="export collected values; webhook dead letters")
    sub = parser.add_subparsers(dest="leads_command", required=True)

    export = sub.add_parser("export", help="collected values per conversation as CSV or JSON (an operator action)")
    export.add_argument("--db", required=True, help="database URL (sqlite:///file.db or postgresql://...)")
    export.add_argument("--out", type=Path, required=True, help="file to write (its folder must exist)")
    export.add_argument("--format", choices=FORMATS, help="default: from the --out suffix, else csv")
    export.add_argument("--goal", help="goal spec id (all versions) or an exact ref such as real-estate/v3")
    export.add_argument("--since", help="last activity on or after YYYY-MM-DD (UTC) or an ISO-8601 time")
    export.add_argument("--until", help="last activity before YYYY-MM-DD (UTC) or an ISO-8601 time")
    export.add_argument("--completed-only", action="store_true", help="only conversations with every value")
    export.add_argument("--by", required=True, help="operator name, recorded with the export")
    keys = export.add_mutually_exclusive_group()
    keys.add_argument("--key-env", metavar="NAME", help="env variable holding the deployment key of an encrypted "
                      "store (default: GRACE_AUDIT_KEY when set)")
    keys.add_argument("--key-file", type=Path, metavar="FILE", help="file holding that key (e.g. .grace/audit.key)")
    export.set_defaults(handler=_export)

    dead = sub.add_parser("dead-letters", help="webhook deliveries that exhausted their retries")
    dead.add_argument("--outbox", type=Path, required=True, help="the outbox file of the service's data folder")
    dead.set_defaults(handler=_dead_letters)

    requeue = sub.add_parser("requeue", help="send a dead letter again with a fresh retry budget")
    requeue.add_argument("delivery_id")
    requeue.add_argument("--outbox", type=Path, required=True)
    requeue.add_argument("--by", required=True, help="operator name, recorded with the action")
    requeue.set_defaults(handler=_requeue)


def _export(args: argparse.Namespace) -> int:
    if not args.by.strip():
        raise LeadExportError("--by must name the operator", code="leads.operator_missing")
    check_output_folder(args.out)
    fmt = args.format or ("json" if args.out.suffix.lower() == ".json" else "csv")
    selection = LeadFilter(goal=args.goal, since=parse_day(args.since, "--since"),
                           until=parse_day(args.until, "--until"), completed_only=args.completed_only)
    if selection.since and selection.until and selection.since >= selection.until:
        raise LeadExportError("--since must be before --until", code="leads.date_range_empty")
    _require_database(args.db)
    store = open_store(args.db, audit_key=_key(args))
    try:
        leads = collect_leads(store, selection)
    finally:
        store.close()
    write_text_atomic(args.out, to_json(leads) if fmt == "json" else to_csv(leads))
    # The export is an operator action: who, what selection, how many conversations (never the values).
    log.warning("operator.leads.exported", by=args.by.strip(), goal=args.goal, since=args.since, until=args.until,
                completed_only=args.completed_only, conversations=len(leads), format=fmt, out=str(args.out))
    print(f"exported {len(leads)} conversation(s) to {args.out} ({fmt})")
    return 0


def _dead_letters(args: argparse.Namespace) -> int:
    outbox = _open_outbox(args.outbox)
    try:
        letters = outbox.dead_letters()
    finally:
        outbox.close()
    print(f"{len(letters)} dead letter(s)")
    for letter in letters:
        print(f"  {letter.delivery_id}  goal {letter.goal}  attempts {letter.attempts}  last error {letter.last_error}"
              f"  at {letter.updated_at}")
    return 0


def _requeue(args: argparse.Namespace) -> int:
    outbox = _open_outbox(args.outbox)
    try:
        delivery = outbox.requeue(args.delivery_id, datetime.now(UTC))
    finally:
        outbox.close()
    log.warning("operator.leads.requeued", by=args.by.strip(), delivery_id=delivery.delivery_id, goal=delivery.goal)
    print(f"requeued {delivery.delivery_id} for goal {delivery.goal}")
    return 0


def _key(args: argparse.Namespace) -> bytes | None:
    """The key that opens an encrypted store's values; None reads a store without encryption."""
    from audit.keys import DEFAULT_KEY_ENV, key_from_env, key_from_file

    if args.key_file is not None:
        return key_from_file(args.key_file)
    if args.key_env is not None or os.environ.get(DEFAULT_KEY_ENV):
        return key_from_env(args.key_env or DEFAULT_KEY_ENV)
    return None


def _open_outbox(path: Path) -> Outbox:
    if not path.is_file():
        raise LeadExportError(f"no outbox at {path}", code="leads.outbox_missing")
    return Outbox(path)


def _require_database(url: str) -> None:
    """An export reads an existing database: a mistyped SQLite path must not create an empty one."""
    if url.startswith(("postgresql://", "postgres://")):
        return
    path = sqlite_path(url)  # the storage layer's reading of the URL (relative to the working directory)
    if not path.is_file():
        raise LeadExportError(f"no database file at {path}", code="leads.db_missing")
