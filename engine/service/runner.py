"""Build a ready-to-serve application from ``grace serve`` arguments (also used by tests and the benchmark)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fastapi import FastAPI

from engine.errors import InputError
from engine.service import demo
from engine.service.app import create_app
from engine.service.assembly import GoalSource, build_catalog
from engine.service.catalog import Catalog
from engine.service.config import config_from_env
from engine.storage import open_store
from engine.storage.base import DurableStore


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


def build_from_args(args: argparse.Namespace) -> Built:
    from engine.goals.publication import list_published
    from engine.retrieval.factory import build_answerer
    from engine.verified_bundle import load_verified_bundle

    corpora = _corpus_map(args.corpus)  # argument errors first, before anything slow is loaded
    if not args.demo and not args.goals:
        raise InputError("nothing to serve: use --demo or --goals DIR", code="service.no_goals")
    data_dir: Path = args.data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    url = args.database_url or os.environ.get("GRACE_DATABASE_URL") or f"sqlite:///{data_dir / 'grace.db'}"
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
            answerer = build_answerer(corpus, bundle=bundle, cache_dir=data_dir / "embeddings") if corpus else None
            sources.append(GoalSource(spec=published, answerer=answerer))
    if not sources:
        raise InputError("nothing to serve: use --demo or --goals DIR", code="service.no_goals")
    store = open_store(url)
    key = demo.audit_key(data_dir)
    catalog = build_catalog(
        store=store, bundle=bundle, proposer=demo.offline_proposer(bundle), goals=sources, audit_key=key
    )
    app = create_app(config=config, store=store, catalog=catalog, audit_key=key)
    return Built(app, store, catalog, config.operator_token, generated, label)
