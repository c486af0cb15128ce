"""``grace serve``: run the HTTP service (API, widget, console).

grace serve --demo                      # SQLite in ./.grace (of the working directory), every demo company
grace serve --database-url postgresql://... --goals path/to/published --corpus real-estate=path/to/corpus
grace serve --workers 4 --database-url postgresql://...   # 4 engine processes on one port (PostgreSQL only)
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path
from typing import Any

from engine.service import listeners

DEFAULT_DATA_DIR = Path(".grace")  # gitignored


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("serve", help="run the HTTP service: API, chat widget and operator console")
    parser.add_argument("--demo", action="store_true", help="serve every demo company on embedded defaults")
    parser.add_argument("--host", default="127.0.0.1", help="bind address (default: loopback only)")
    parser.add_argument("--port", type=int, default=8000, help="port (0: any free port)")
    parser.add_argument(
        "--database-url",
        default=None,
        help="sqlite:///file.db or postgresql://... (default: $GRACE_DATABASE_URL or sqlite in --data-dir)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=DEFAULT_DATA_DIR,
        help="folder for the SQLite file, the local audit key and caches (default: ./.grace in the working"
        " directory)",
    )
    parser.add_argument(
        "--sqlite-synchronous",
        choices=("NORMAL", "FULL"),
        default=None,
        help="SQLite durability: FULL fsyncs every commit (default: $GRACE_SQLITE_SYNCHRONOUS or NORMAL)",
    )
    parser.add_argument(
        "--goals", type=Path, action="append", default=[], help="folder of published goal specs to serve (repeatable)"
    )
    parser.add_argument(
        "--corpus",
        action="append",
        default=[],
        metavar="GOAL=DIR",
        help="company corpus answering for a goal spec id (repeatable)",
    )
    parser.add_argument("--rules", type=Path, default=None, help="rule bundle folder (default: rules/)")
    parser.add_argument(
        "--webhooks",
        type=Path,
        default=None,
        help="JSON file of completion webhooks per goal (engine/leads/webhooks.schema.json); outbox in --data-dir",
    )
    parser.add_argument(
        "--handoff",
        type=Path,
        default=None,
        help="JSON file of how each goal's people take over when a visitor asks for a person: e-mail, phone, "
        "webhook, opening hours (engine/handoff/handoff.schema.json)",
    )
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        help="browser origin allowed to call the API (repeatable; or $GRACE_CORS_ORIGINS)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="engine processes sharing the listening socket (more than 1 needs PostgreSQL; default 1)",
    )
    parser.set_defaults(handler=serve)


def serve(args: argparse.Namespace) -> int:
    import os

    from engine.service.native_threads import limit_native_threads
    from engine.service.runner import check_arguments, storage_location
    from engine.service.serving import run_server
    from engine.service.workers import check_workers

    limit_native_threads(os.environ)  # before any native library loads; the workers inherit it

    check_arguments(args)  # before the port is bound: a bad command line is reported as such, even on a busy port
    _, url = storage_location(args)
    check_workers(args.workers, url)  # before anything slow is loaded
    # Bound before anything slow is loaded, so a port in use is reported at once.
    per_worker = args.workers > 1 and listeners.reuse_port_balances()
    sock = listeners.reserve(args.host, args.port) if per_worker else listeners.listen(args.host, args.port)
    try:
        if args.workers == 1:
            return run_server(args, lambda: sock, index=0, print_banner=True)
        return _supervise(args, sock, per_worker=per_worker)
    finally:
        sock.close()


def _supervise(args: argparse.Namespace, sock: socket.socket, *, per_worker: bool) -> int:
    """Several workers: one operator token and one audit key for all of them, made here once."""
    import os

    from engine.service import demo
    from engine.service.runner import storage_location
    from engine.service.workers import supervise

    env = dict(os.environ)
    if args.demo and not env.get("GRACE_OPERATOR_TOKEN"):
        token, _ = demo.operator_token()
        env["GRACE_OPERATOR_TOKEN"] = token
        print(f"  operator token (generated for this run; set GRACE_OPERATOR_TOKEN to fix it): {token}", flush=True)
    data_dir, _ = storage_location(args)
    demo.audit_key(data_dir)  # the key file, if one is used, exists before the workers race to make it
    return supervise(args, sock, env, per_worker=per_worker)


if __name__ == "__main__":  # pragma: no cover - convenience: python -m engine.service.cli serve --demo
    from engine.cli import main

    sys.exit(main(["serve", *sys.argv[1:]]))
