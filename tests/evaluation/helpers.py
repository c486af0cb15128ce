"""Running datasets through the real turn runtime with the demo specs published to a scratch folder."""

from __future__ import annotations

from pathlib import Path

from engine.evaluation.dataset import load_dataset
from engine.evaluation.metrics import Metrics
from engine.evaluation.report import metrics_by_config
from engine.evaluation.runner import ConversationRun, run_dataset
from engine.evaluation.targets import candidate_targets
from llm_adapters.offline import OfflineProposer
from tests.proposer.helpers import DEMO_SPECS, project_bundle

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def run(path: Path) -> tuple[list[ConversationRun], dict[str, Metrics]]:
    bundle = project_bundle()
    demos = candidate_targets(list(DEMO_SPECS.values()), bundle, with_answerer=False)
    runs = run_dataset(load_dataset(path), demos, bundle=bundle, proposer=OfflineProposer.from_bundle(bundle))
    return runs, metrics_by_config(runs)
