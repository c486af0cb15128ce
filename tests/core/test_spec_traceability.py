"""Every invariant of spec/SPEC.md is enforced somewhere that says so and exercised by a test that cites it."""

from __future__ import annotations

from pathlib import Path

import pytest

from spec import trace

ROOT = Path(__file__).resolve().parents[2]


def test_every_invariant_is_tagged_in_code_and_cited_by_a_test() -> None:
    built = trace.build(ROOT)
    assert {"I-1", "I-14", "T-1", "T-4"} <= set(built.invariants)  # the parser still reads SPEC.md's list
    assert built.problems() == []


def test_the_property_table_in_spec_readme_is_current() -> None:
    assert trace.main(["--check"]) == 0


def test_an_untested_or_unknown_invariant_is_reported(tmp_path: Path) -> None:
    (tmp_path / "spec").mkdir()
    (tmp_path / "spec" / "SPEC.md").write_text("- **I-1 Weights.** sum to one\n- **I-2 Binary.** 0 or 1\n")
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "a.py").write_text("# INVARIANT (I-1): here\n# INVARIANT (I-9): not defined\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(
        'import pytest\n\n\n@pytest.mark.invariant("I-1")\ndef test_one() -> None:\n    pass\n')
    problems = trace.build(tmp_path).problems()
    assert any("'I-9'" in p for p in problems)
    assert any(p.startswith("I-2") and "no INVARIANT tag" in p for p in problems)
    assert any(p.startswith("I-2") and "no test" in p for p in problems)
    assert not any(p.startswith("I-1 ") for p in problems)


@pytest.mark.parametrize("ids", [("I-6",), ("I-5", "I-14")])
def test_markers_are_read_from_decorators_and_pytestmark(tmp_path: Path, ids: tuple[str, ...]) -> None:
    quoted = ", ".join(f'"{i}"' for i in ids)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_b.py").write_text(f"import pytest\npytestmark = pytest.mark.invariant({quoted})\n")
    assert sorted(ident for ident, _ in trace.marker_citations(tmp_path)) == sorted(ids)
