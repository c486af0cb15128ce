"""Throughput and latency of full offline turns: TurnRuntime + offline proposer + decision layer (acceptance
rules, validators, Z3 invariant check) + policy + sealed audit record, on the in-memory store (or SQLite, with
``--store sqlite``; ``sqlite-encrypted`` adds per-conversation encryption and the state-seal check).

    /work/venv/bin/python -m benchmarks.turn_bench [--rounds 5] [--with-answerer] [--dataset PATH] [--store S]

Prints turns/second and p50/p90/p99 per-turn latency, plus the proposer alone. Numbers, not assertions.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import structlog

from engine.evaluation.dataset import Dataset, load_dataset
from engine.evaluation.runner import DemoTarget, pick_demo
from engine.evaluation.targets import candidate_targets, working_tree_bundle
from engine.kernel.ports import ConversationStore
from engine.kernel.turn import TurnRuntime
from engine.progress import progress
from engine.rules.loader import RuleBundle
from engine.storage.memory import InMemoryStore
from llm_adapters.offline import OfflineProposer

ROOT = Path(__file__).resolve().parents[1]

SPECS = [ROOT / "demos/real_estate/goal_spec.json", ROOT / "demos/cleaning/goal_spec.json"]


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


KEY = b"bench-key-" * 4


def _store_factory(kind: str, folder: Path) -> Callable[[], ConversationStore]:
    if kind == "memory":
        return InMemoryStore
    from engine.storage.sqlite import SQLiteStore

    store = SQLiteStore(folder / "bench.db", audit_key=KEY if kind == "sqlite-encrypted" else None)
    return lambda: store


def _run(dataset: Dataset, demos: dict[str, DemoTarget], bundle: RuleBundle, proposer: OfflineProposer,
         tag: str, latencies: list[float], propose_ms: list[float],
         make_store: Callable[[], ConversationStore] = InMemoryStore) -> None:
    for conversation in dataset.conversations:
        config = dataset.configs[conversation.config]
        target = pick_demo(conversation.config, config, demos, "auto")
        runtime = TurnRuntime(spec=target.spec, bundle=bundle, proposer=proposer, answerer=target.answerer,
                              store=make_store(), audit_key=KEY)
        state = runtime.start(conversation_id=f"{tag}-{conversation.id}")
        for turn in conversation.turns:
            t0 = time.perf_counter()
            result = runtime.handle(state.conversation_id, turn.visitor)
            latencies.append((time.perf_counter() - t0) * 1000)
            propose_ms.append(float(result.record["timings_ms"].get("propose_ms", 0.0)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=ROOT / "tests/golden/golden_conversations.json")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--with-answerer", action="store_true", help="include embedded retrieval per turn")
    parser.add_argument("--store", choices=("memory", "sqlite", "sqlite-encrypted"), default="memory")
    args = parser.parse_args(argv)
    folder = tempfile.TemporaryDirectory()
    make_store = _store_factory(args.store, Path(folder.name))
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))

    bundle = working_tree_bundle(ROOT / "rules")
    proposer = OfflineProposer.from_bundle(bundle)
    demos = candidate_targets(SPECS, bundle, with_answerer=args.with_answerer)
    dataset = load_dataset(args.dataset)
    _run(dataset, demos, bundle, proposer, "warmup", [], [], make_store)  # first retrieval calls are not timed
    latencies: list[float] = []
    propose_ms: list[float] = []
    started = time.perf_counter()
    for round_ in progress(range(args.rounds), "turn rounds"):
        _run(dataset, demos, bundle, proposer, str(round_), latencies, propose_ms, make_store)
    elapsed = time.perf_counter() - started
    print(f"dataset {dataset.name}: {len(latencies)} turns in {elapsed:.2f} s "
          f"({args.rounds} rounds, answerer {'on' if args.with_answerer else 'off'}, store {args.store})")
    print(f"  throughput      {len(latencies) / elapsed:8.1f} turns/s (single thread)")
    print(f"  turn latency    p50 {statistics.median(latencies):7.2f} ms   p90 {_percentile(latencies, 0.90):7.2f} ms"
          f"   p99 {_percentile(latencies, 0.99):7.2f} ms   max {max(latencies):7.2f} ms")
    print(f"  proposer alone  p50 {statistics.median(propose_ms):7.2f} ms"
          f"   p99 {_percentile(propose_ms, 0.99):7.2f} ms")
    folder.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
