"""Run the SGD benchmark: per service, convert its single-service dialogues, run them through the full turn runtime
with the offline proposer, and score GRACE beside the zeros and keyword baselines, per service and per kind."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import structlog

from engine.evaluation.dataset import Dataset
from engine.evaluation.metrics import ConversationOutcome, Metrics, compute_metrics
from engine.evaluation.runner import ConversationRun, DemoTarget, run_dataset
from engine.evaluation.sgd.baselines import keyword_outcomes, zeros_outcomes
from engine.evaluation.sgd.classes import ClassBook, ClassTally, classify, load_class_book, merge_tallies
from engine.evaluation.sgd.convert import convert_service
from engine.evaluation.sgd.corpus import SPLIT, SgdCorpus, load_corpus
from engine.evaluation.sgd.mapping import ServiceBench, available_services, load_service_bench
from engine.evaluation.sgd.misses import FailureKind, analyse
from engine.evaluation.sgd.scoring import add_metrics, merge_kind_metrics, metrics_by_kind
from engine.evaluation.targets import candidate_targets
from engine.kernel.ports import Proposer
from engine.kernel.turn import RoleChoice
from engine.progress import progress
from engine.rules.loader import RuleBundle

log = structlog.get_logger("grace.eval.sgd")

SYSTEMS = ("grace", "keyword", "zeros")


@dataclass(frozen=True)
class ServiceResult:
    service: str
    dataset: Dataset
    runs: tuple[ConversationRun, ...]
    seconds: float
    metrics: dict[str, Metrics]  # system -> metrics
    kinds: dict[str, dict[str, Metrics]]  # system -> criterion kind -> metrics
    misses: tuple[FailureKind, ...]
    unsupported: tuple[FailureKind, ...]
    classes: dict[tuple[str, str], ClassTally]  # (missed|unsupported, class id) -> count and samples

    @property
    def turns(self) -> int:
        return sum(len(r.turns) for r in self.runs)

    @property
    def turns_per_second(self) -> float:
        return self.turns / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class BenchResult:
    sgd_dir: Path
    limit: int | None
    proposer: str
    services: tuple[ServiceResult, ...]
    splits: tuple[str, ...]
    book: ClassBook

    def combined_classes(self) -> dict[tuple[str, str], ClassTally]:
        return merge_tallies([r.classes for r in self.services], self.book)

    def by_split(self) -> dict[str, Metrics]:
        """GRACE's metrics over the dialogues of each split (ids carry the split when several are read)."""
        runs = [run for r in self.services for run in r.runs]
        if len(self.splits) == 1:
            return {self.splits[0]: compute_metrics([run.outcome() for run in runs])}
        return {split: compute_metrics([run.outcome() for run in runs if run.id.startswith(f"{split}-")])
                for split in self.splits}

    def combined(self) -> dict[str, Metrics]:
        return {s: add_metrics(r.metrics[s] for r in self.services) for s in SYSTEMS}

    def combined_kinds(self) -> dict[str, dict[str, Metrics]]:
        return {s: merge_kind_metrics(r.kinds[s] for r in self.services) for s in SYSTEMS}

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.services)

    @property
    def turns(self) -> int:
        return sum(r.turns for r in self.services)


def _score(outcomes: Sequence[ConversationOutcome], kinds: Sequence[str]) -> tuple[Metrics, dict[str, Metrics]]:
    return compute_metrics(outcomes), metrics_by_kind(outcomes, kinds)


def run_service(corpus: SgdCorpus, bench: ServiceBench, targets: Mapping[str, DemoTarget], *, bundle: RuleBundle,
                proposer: Proposer, limit: int | None, book: ClassBook, roles: RoleChoice | None = None,
                now: datetime | None = None) -> ServiceResult:
    name = bench.service.service_name
    dataset = convert_service(corpus.single_service(name), bench, limit)
    started = time.perf_counter()
    runs = run_dataset(dataset, targets, bundle=bundle, proposer=proposer, demo=bench.spec.id, roles=roles,
                       now=now)
    seconds = time.perf_counter() - started
    kinds = [o.criterion.kind.value for o in bench.objectives]
    outcomes = {
        "grace": [r.outcome() for r in runs],
        "keyword": keyword_outcomes(dataset, bench),
        "zeros": zeros_outcomes(dataset),
    }
    scored = {system: _score(outcomes[system], kinds) for system in SYSTEMS}
    misses, unsupported = analyse(dataset, runs)
    log.info("eval.sgd.service.done", service=name, conversations=len(runs), seconds=round(seconds, 2))
    return ServiceResult(
        service=name, dataset=dataset, runs=tuple(runs), seconds=seconds,
        metrics={s: scored[s][0] for s in SYSTEMS}, kinds={s: scored[s][1] for s in SYSTEMS},
        misses=tuple(misses), unsupported=tuple(unsupported), classes=classify(dataset, runs, bench, book),
    )


@dataclass(frozen=True)
class Prepared:
    """The corpus and the checked service benches: everything about the data, before any rule bundle loads."""

    corpus: SgdCorpus
    benches: tuple[ServiceBench, ...]
    splits: tuple[str, ...] = (SPLIT,)
    book: ClassBook | None = None


def prepare(sgd_dir: Path, bench_dir: Path, services: Sequence[str] | None,
            splits: Sequence[str] = (SPLIT,)) -> Prepared:
    """Without ``services``: every benchmarked service that has single-service dialogues in the splits read."""
    names = list(services) if services else available_services(bench_dir)
    corpus = load_corpus(sgd_dir, set(names), splits)
    if not services:
        present = {d.services[0] for d in corpus.dialogues if len(d.services) == 1}
        names = [n for n in names if n in present]
    benches = tuple(load_service_bench(bench_dir, name, corpus.services) for name in names)
    classes = bench_dir / "failure_classes.json"
    book = load_class_book(classes) if classes.is_file() else load_class_book()
    return Prepared(corpus, benches, tuple(splits), book)


def run_benchmark(prepared: Prepared, limit: int | None, *, bundle: RuleBundle, proposer: Proposer,
                  proposer_label: str, roles: RoleChoice | None = None, now: datetime | None = None) -> BenchResult:
    """``roles``: e.g. the LLM roles every conversation's runtime is built with (``grace bench sgd --llm``)."""
    # every spec is validated and published to a scratch folder before the first dialogue runs
    targets = [candidate_targets([b.spec_path], bundle, with_answerer=False) for b in prepared.benches]
    pairs = list(zip(prepared.benches, targets, strict=True))
    book = prepared.book or load_class_book()
    now = now or prepared.corpus.reference_time  # --now, else the corpus's own "today"
    results = tuple(run_service(prepared.corpus, b, t, bundle=bundle, proposer=proposer, limit=limit, book=book,
                                roles=roles, now=now)
                    for b, t in progress(pairs, "sgd services"))
    return BenchResult(sgd_dir=prepared.corpus.root, limit=limit, proposer=proposer_label, services=results,
                       splits=prepared.splits, book=book)
