"""The scratch folders an evaluation publishes candidate specs and working-tree rules into are gone when the
process exits: repeated `grace eval` runs must not fill the machine's temp folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
from pathlib import Path
from engine.evaluation.targets import candidate_targets, working_tree_bundle
bundle = working_tree_bundle(Path("rules"))
targets = candidate_targets([Path("demos/real_estate/goal_spec.json")], bundle, with_answerer=False)
assert len(targets) == 1, targets
made = sorted(p.name for p in Path(sys.argv[1]).iterdir())
assert any(n.startswith("grace-eval-rules-") for n in made) and any(n.startswith("grace-eval-") for n in made), made
print("made", len(made))
"""


def test_scratch_folders_are_removed_at_exit(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(scratch)], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[-1].startswith("made "), done.stdout  # they existed while it ran
    assert [p.name for p in scratch.iterdir()] == []
