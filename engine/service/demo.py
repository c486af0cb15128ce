"""Embedded defaults for ``grace serve``: SQLite, the offline proposer, the embedded retrieval index, the
demo companies, a local audit key and an operator token. No network, no API key."""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import structlog

from engine.errors import InputError
from engine.kernel.ports import Answerer, Proposer
from engine.rules.loader import RuleBundle
from engine.service.catalog_build import GoalSource

log = structlog.get_logger("engine.service.demo")

DEMO_NAMES = ("real-estate", "cleaning")  # always served; other published demos are added when their data exists
AUDIT_KEY_FILE = "audit.key"


def offline_proposer(bundle: RuleBundle) -> Proposer:
    """The deterministic offline proposer of ``llm_adapters``."""
    from llm_adapters.offline import OfflineProposer

    # cast: from_bundle's protocol declares ``files`` settable; RuleBundle (frozen) exposes it read-only.
    proposer: Proposer = OfflineProposer.from_bundle(cast(Any, bundle))
    return proposer


def demo_sources(
    names: tuple[str, ...] | None = None, *, cache_dir: Path | None = None, bundle: RuleBundle | None = None
) -> list[GoalSource]:
    """The demo companies: corpus demos get the embedded index; directory demos (TRACE) their directory.
    Their rules come from ``bundle`` (the verified bundle being served; loaded and verified here when absent).

    Without explicit ``names``: the two paper demos, plus every other published demo whose data is present
    (the pantry helpline reads the shared Kansas directory, which a deployment may not have).
    """
    from engine.demos import demo_names, load_demo
    from engine.kernel.decision.bundle_proofs import load_verified_bundle
    from engine.retrieval.factory import build_answerer
    from engine.runtimes import demo_answerer

    requested = names or tuple(dict.fromkeys([*DEMO_NAMES, *demo_names()]))
    bundle = bundle if bundle is not None else load_verified_bundle()
    sources = []
    for name in requested:
        demo = load_demo(name)
        answerer: Answerer
        if demo.answerer.kind == "corpus":
            options: dict[str, Any] = {}
            if cache_dir is not None:
                options["cache_dir"] = cache_dir
            answerer = build_answerer(demo.corpus_dir, bundle=bundle, **options)
        else:
            try:
                answerer = demo_answerer(demo, bundle)
            except InputError as exc:
                if names is not None or exc.code != "demo.data_missing":
                    raise
                log.warning("service.demo.skipped", demo=name, code=exc.code, reason=exc.message)
                continue
        sources.append(GoalSource(spec=demo.spec, answerer=answerer, aliases=(name,)))
        log.info("service.demo.loaded", demo=name, goal=demo.spec.ref)
    return sources


def audit_key(data_dir: Path) -> bytes:
    """``GRACE_AUDIT_KEY`` / ``GRACE_AUDIT_KEY_FILE`` if set, else a key file in ``data_dir`` (made once,
    mode 0600). The key never leaves the machine and is never printed."""
    from audit.keys import key_from_env, parse_key

    if os.environ.get("GRACE_AUDIT_KEY"):
        return key_from_env()
    path = Path(os.environ.get("GRACE_AUDIT_KEY_FILE") or data_dir / AUDIT_KEY_FILE)
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("hex:" + secrets.token_hex(32) + "\n")
        log.info("service.audit_key.created", path=str(path))
    try:
        return parse_key(path.read_text(encoding="utf-8"), source=str(path))
    except OSError as exc:
        raise InputError(f"cannot read audit key file {path}: {exc.strerror}", code="service.audit_key") from exc


def operator_token(explicit: str | None = None) -> tuple[str, bool]:
    """The operator token and whether it was generated for this run (then it is printed at start)."""
    token = explicit or os.environ.get("GRACE_OPERATOR_TOKEN", "")
    if token:
        return token, False
    return secrets.token_urlsafe(24), True


@dataclass(frozen=True)
class Urls:
    base: str
    widgets: list[tuple[str, str, str]]  # (goal name, language, url)
    console: str
    docs: str
