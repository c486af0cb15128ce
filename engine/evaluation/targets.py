"""Where the goal specs of an evaluation come from: the published demos, or candidate specs under test."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import structlog

from engine.demos import Demo
from engine.errors import GraceError
from engine.evaluation.errors import EvaluationError
from engine.evaluation.runner import DemoTarget
from engine.kernel.goal_models import GoalSpec
from engine.kernel.ports import Answerer
from engine.rules.loader import RuleBundle, load_bundle

log = structlog.get_logger("grace.eval")


def _scratch(prefix: str) -> Path:
    """A throw-away folder removed when the process exits: the bundle and specs loaded from it stay in memory,
    and a run of `grace eval` leaves nothing behind in the temp folder."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def working_tree_bundle(root: Path) -> RuleBundle:
    """The rule files as they are now, ignoring publication records (development only): a scratch copy
    without ``published/`` is loaded, so an edited bundle can be evaluated before it is re-published."""
    scratch = _scratch("grace-eval-rules-") / "rules"
    shutil.copytree(root, scratch, ignore=shutil.ignore_patterns("published"))
    return load_bundle(scratch, require_published=False)


def _optional_answerer(make: Callable[[], Answerer], label: str) -> Answerer | None:
    """The answerer is optional for state metrics: run without it when it cannot be built, but say so."""
    try:
        return make()
    except GraceError as exc:
        log.warning("eval.answerer.unavailable", source=label, code=exc.code)
        return None


def _corpus_answerer(corpus_dir: Path) -> Answerer | None:
    from engine.runtimes import embedded_answerer

    if not corpus_dir.is_dir():
        return None
    return _optional_answerer(lambda: embedded_answerer(corpus_dir), str(corpus_dir))


def _demo_answerer(demo: Demo) -> Answerer | None:
    from engine.runtimes import demo_answerer

    return _optional_answerer(lambda: demo_answerer(demo), demo.name)


def published_demos(with_answerer: bool) -> dict[str, DemoTarget]:
    from engine.demos import demo_names, load_demo

    targets = {}
    for name in demo_names():
        demo = load_demo(name)
        answerer = _demo_answerer(demo) if with_answerer else None
        targets[name] = DemoTarget(name=name, spec=demo.spec, answerer=answerer)
    return targets


def candidate_targets(paths: Sequence[Path], bundle: RuleBundle, with_answerer: bool) -> dict[str, DemoTarget]:
    """Validate candidate spec files and publish them to a throw-away folder (never to demos/)."""
    from engine.goals.publication import approve

    targets = {}
    scratch = _scratch("grace-eval-")
    for path in paths:
        try:
            spec = GoalSpec.model_validate_json(path.read_bytes())
        except OSError as exc:
            raise EvaluationError(f"cannot read {path}: {exc.strerror}", code="eval.spec_unreadable") from exc
        except ValueError as exc:
            raise EvaluationError(f"{path.name}: not a goal spec", code="eval.spec_invalid") from exc
        published = approve(spec, bundle, "grace-eval (candidate, not approved)", scratch)
        corpus = path.parent / "corpus"
        answerer = _corpus_answerer(corpus) if with_answerer else None
        targets[spec.id] = DemoTarget(name=spec.id, spec=published, answerer=answerer)
    return targets
