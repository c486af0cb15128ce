"""One server process: build the service from the command's arguments, settle its heap, join the port and serve
until SIGTERM/SIGINT (``grace serve`` runs it once; each worker of ``--workers N`` runs it in its own process)."""

from __future__ import annotations

import argparse
import os
import signal
import socket
from collections.abc import Callable


def worker_banner(index: int, workers: int) -> str:
    """The line each worker prints once it is built and about to serve (the load benchmark reads the pid)."""
    return f"GRACE worker {index}/{workers} pid {os.getpid()} ready"


def run_server(
    args: argparse.Namespace, listener: Callable[[], socket.socket], *, index: int, print_banner: bool
) -> int:
    """Build the service, then serve the socket ``listener`` gives until SIGTERM/SIGINT, finishing in-flight
    requests first."""
    from engine.service.heap import set_switch_interval, settle_heap
    from engine.service.runner import build_from_args
    from engine.service.server import GracefulServer, uvicorn_config

    built = build_from_args(args)
    # Warm now: exempt the start-up heap from every later collection (engine/service/heap.py).
    settle_heap(freeze=built.app.state.limits.freeze_heap_after_warm_up)
    set_switch_interval(built.app.state.limits.switch_interval_ms)
    try:
        sock = listener()  # a worker joins the port only once warm
    except OSError:
        built.close()
        raise
    port = sock.getsockname()[1]
    shown_host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host

    def announce() -> None:  # once the server listens and uvicorn handles the stop signals
        if print_banner:
            for line in built.banner(f"http://{shown_host}:{port}"):
                print(line, flush=True)
        print(worker_banner(index, args.workers), flush=True)

    config = uvicorn_config(built.app, timeout_graceful_shutdown=built.app.state.limits.shutdown_grace_s)
    server = GracefulServer(config, on_started=announce)
    # Until uvicorn installs its handlers a stop signal is remembered (the server then stops as soon as it has
    # started); uvicorn re-raises the signal once it has shut down, and these quiet handlers keep that from
    # killing the process before the store and the webhook outbox are closed below.
    previous = {sig: signal.signal(sig, server.request_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.run(sockets=[sock])
    finally:
        built.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0
