"""Build a ready-to-serve application from ``grace serve`` arguments (also used by tests and the benchmark)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import FastAPI

from engine.errors import InputError
from engine.handoff.config import load_handoff
from engine.leads.notifier import LeadNotifier
from engine.service import demo
from engine.service.app import create_app
from engine.service.catalog import Catalog
from engine.service.catalog_build import GoalSource, build_catalog
from engine.service.config import config_from_env
from engine.service.readiness import warm_up
from engine.storage import open_store
from engine.storage.base import DurableStore
from engine.storage.private_files import DIR_MODE

OUTBOX_FILE = "outbox.db"
DEMO_HANDOFF = Path(__file__).resolve().parents[2] / "demos" / "handoff.json"  # the demo companies' people


@dataclass
class Built:
    app: FastAPI
    store: DurableStore
    catalog: Catalog
    token: str
    token_generated: bool
    database_label: str
    closers: list[Callable[[], None]] = field(default_factory=list)

    def banner(self, base: str) -> list[str]:
        lines = [f"GRACE service on {base}  (store: {self.database_label})"]
        for goal in sorted(self.catalog.goals, key=lambda g: g.published.ref):
            name = goal.aliases[0] if goal.aliases else goal.published.spec.id
            for lang in goal.published.spec.languages:
                lines.append(f"  widget  {name} ({lang}): {base}/demo/{name}?lang={lang}")
        if self.token_generated:
            lines.append(f"  console: {base}/console#token={self.token}")
            lines.append(f"  operator token (generated for this run; set GRACE_OPERATOR_TOKEN to fix it): {self.token}")
        else:
            lines.append(f"  console: {base}/console  (sign in with GRACE_OPERATOR_TOKEN)")
        lines.append(f"  API reference: {base}/docs   OpenAPI: {base}/openapi.json")
        return lines

    def close(self) -> None:
        for close in reversed(self.closers):
            close()
        self.store.close()


def _corpus_map(items: list[str]) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for item in items:
        goal, sep, folder = item.partition("=")
        if not sep or not goal or not folder:
            raise InputError(f"--corpus expects GOAL=DIR, got {item!r}", code="service.corpus_arg")
        out[goal] = Path(folder)
    return out


def check_arguments(args: argparse.Namespace) -> None:
    """Every cheap check of ``grace serve``'s arguments and environment, run before the port is bound: a wrong
    command line is reported as such even when the port is taken (e.g. by a running ``make demo``)."""
    corpora = _corpus_map(args.corpus)
    if not args.demo and not args.goals:
        raise InputError("nothing to serve: use --demo or --goals DIR", code="service.no_goals")
    for folder in args.goals:
        if not Path(folder).is_dir():
            raise InputError(f"--goals {folder}: no such folder of published goal specs", code="service.goals_missing")
    for goal, folder in corpora.items():
        if not folder.is_dir():
            raise InputError(f"--corpus {goal}={folder}: no such folder", code="service.corpus_missing")
    if getattr(args, "handoff", None) is not None:
        load_handoff(args.handoff)  # handoff.config_unreadable / config_invalid before the port is bound
    if not args.demo:
        env = dict(os.environ)
        if args.cors_origin:
            env["GRACE_CORS_ORIGINS"] = ",".join(args.cors_origin)
        config_from_env(env)  # service.token_missing / token_weak / cors_invalid


def storage_location(args: argparse.Namespace) -> tuple[Path, str]:
    """The data folder (made if missing) and the database URL. The folder is resolved against the working
    directory (the checkout), so two checkouts never share one database or audit key by default."""
    data_dir = Path(args.data_dir).expanduser().resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(data_dir, DIR_MODE)  # the folder holds the database, its WAL, the outbox and the key: owner only
    url = args.database_url or os.environ.get("GRACE_DATABASE_URL") or f"sqlite:///{data_dir / 'grace.db'}"
    return data_dir, url


def build_from_args(args: argparse.Namespace) -> Built:
    from engine.goals.publication import list_published
    from engine.kernel.decision.bundle_proofs import load_verified_bundle
    from engine.retrieval.factory import build_answerer
    from engine.runtimes import plain_folder_manifest

    corpora = _corpus_map(args.corpus)  # argument errors first, before anything slow is loaded
    if not args.demo and not args.goals:
        raise InputError("nothing to serve: use --demo or --goals DIR", code="service.no_goals")
    data_dir, url = storage_location(args)
    synchronous = getattr(args, "sqlite_synchronous", None) or os.environ.get("GRACE_SQLITE_SYNCHRONOUS", "NORMAL")
    label = url.split("@")[-1] if url.startswith("postgres") else url  # never print a password
    token, generated = demo.operator_token() if args.demo else (os.environ.get("GRACE_OPERATOR_TOKEN", ""), False)
    env = dict(os.environ)
    if args.cors_origin:
        env["GRACE_CORS_ORIGINS"] = ",".join(args.cors_origin)
    config = config_from_env(env, operator_token=token or None)

    bundle = load_verified_bundle(args.rules) if args.rules else load_verified_bundle()
    sources: list[GoalSource] = []
    if args.demo:
        sources.extend(demo.demo_sources(cache_dir=data_dir / "embeddings", bundle=bundle))
    for folder in args.goals:
        for published in list_published(folder):
            corpus = corpora.get(published.spec.id)
            answerer = build_answerer(corpus, bundle=bundle, cache_dir=data_dir / "embeddings",
                                      default_manifest=plain_folder_manifest(published)) if corpus else None
            sources.append(GoalSource(spec=published, answerer=answerer))
    if not sources:
        raise InputError("nothing to serve: use --demo or --goals DIR", code="service.no_goals")
    key = demo.audit_key(data_dir)
    store = open_store(url, audit_key=key, synchronous=synchronous,
                       slow_commit_ms=config.limits.slow_commit_log_ms, anchor_dir=data_dir)
    notifier = _notifier(getattr(args, "webhooks", None), data_dir)
    catalog = build_catalog(
        store=store, bundle=bundle, proposer=demo.offline_proposer(bundle), goals=sources, audit_key=key,
    )
    handoff_file = getattr(args, "handoff", None) or (DEMO_HANDOFF if args.demo and DEMO_HANDOFF.is_file() else None)
    handoff = load_handoff(handoff_file) if handoff_file is not None else {}
    app = create_app(config=config, store=store, catalog=catalog, audit_key=key, notifier=notifier, handoff=handoff)
    built = Built(app, store, catalog, config.operator_token, generated, label)
    if getattr(args, "warm_up", True):
        warm_up(catalog)  # before any request: the first visitors must not wait for models to load
    app.state.warmed = True
    if notifier is not None:
        notifier.watch(store)  # a lead of an erased conversation is never sent
        notifier.sweep(store)  # completions a crash left unqueued
        notifier.start()
        built.closers.append(notifier.close)
    return built


def _notifier(webhooks: Path | None, data_dir: Path) -> LeadNotifier | None:
    """Completion webhooks from ``--webhooks FILE``; their outbox lives in the data folder."""
    if webhooks is None:
        return None
    from engine.leads.outbox import Outbox
    from engine.leads.webhook import DeliverySettings, WebhookDispatcher, webhooks_from_file

    targets = webhooks_from_file(Path(webhooks), os.environ)
    return LeadNotifier(WebhookDispatcher(Outbox(data_dir / OUTBOX_FILE), targets, DeliverySettings.load()))
