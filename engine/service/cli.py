"""``grace serve``: run the HTTP service (API, widget, console).

grace serve --demo                      # SQLite in ./.grace (of the working directory), every demo company
grace serve --database-url postgresql://... --goals path/to/published --corpus real-estate=path/to/corpus
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path
from typing import Any

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
        "--cors-origin",
        action="append",
        default=[],
        help="browser origin allowed to call the API (repeatable; or $GRACE_CORS_ORIGINS)",
    )
    parser.set_defaults(handler=serve)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from engine.service.runner import build_from_args
    from engine.service.server import uvicorn_config

    built = build_from_args(args)
    sock = _listen(args.host, args.port)
    port = sock.getsockname()[1]
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    for line in built.banner(f"http://{shown_host}:{port}"):
        print(line, flush=True)
    config = uvicorn_config(built.app)
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        built.close()
        sock.close()
    return 0


if __name__ == "__main__":  # pragma: no cover - convenience: python -m engine.service.cli serve --demo
    from engine.cli import main

    sys.exit(main(["serve", *sys.argv[1:]]))
