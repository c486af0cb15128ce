"""Published rule bundles are kept whole: every version rebuilds byte for byte and loads as published."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engine.cli import main
from engine.errors import IntegrityError, PublicationError
from engine.rules.archive import materialize, missing_blobs, published_bundle, published_versions, version_of_hash
from engine.rules.loader import DEFAULT_RULES_DIR, compute_hashes, load_bundle
from tests.conftest import copy_core_rules


@pytest.mark.parametrize("version", published_versions(DEFAULT_RULES_DIR))
def test_every_shipped_version_rebuilds_whole(version: str, tmp_path: Path) -> None:
    assert missing_blobs(DEFAULT_RULES_DIR, version) == []
    target = materialize(DEFAULT_RULES_DIR, version, tmp_path / version)
    record = json.loads((DEFAULT_RULES_DIR / "published" / f"{version}.json").read_text())
    assert compute_hashes(target)[0] == record["content_hash"]
    assert load_bundle(target, require_published=True).version == version
    assert version_of_hash(DEFAULT_RULES_DIR, record["content_hash"]) == version


@pytest.fixture()
def two_versions(tmp_path: Path) -> Path:
    """A rules folder with 1.0.0 and 1.1.0 published through the CLI (policy changed in between)."""
    root = copy_core_rules(tmp_path / "rules")
    bundle = json.loads((root / "bundle.json").read_text())
    bundle["version"] = "1.0.0"
    (root / "bundle.json").write_text(json.dumps(bundle))
    assert main(["rules", "approve", "--rules", str(root), "--by", "tester"]) == 0
    policy = json.loads((root / "policy.json").read_text())
    policy["description"] += " (changed)"
    (root / "policy.json").write_text(json.dumps(policy))
    bundle["version"] = "1.1.0"
    (root / "bundle.json").write_text(json.dumps(bundle))
    assert main(["rules", "approve", "--rules", str(root), "--by", "tester"]) == 0
    return root


def test_approve_archives_files_and_records_proofs(two_versions: Path, tmp_path: Path) -> None:
    record = json.loads((two_versions / "published" / "1.0.0.json").read_text())
    assert record["proofs"] and all(p["status"] == "proved" for p in record["proofs"])
    with published_bundle("1.0.0", two_versions) as old:
        assert old.version == "1.0.0" and old.content_hash == record["content_hash"]
        assert "(changed)" not in old.file("policy")["description"]
    with published_bundle("1.1.0", two_versions) as new:
        assert "(changed)" in new.file("policy")["description"]
    # unchanged files are stored once
    blobs = list((two_versions / "published" / "blobs").iterdir())
    assert len(blobs) == len(set(record["files"].values())) + 2  # the new policy.json and bundle.json


def test_an_altered_blob_is_refused(two_versions: Path, tmp_path: Path) -> None:
    record = json.loads((two_versions / "published" / "1.0.0.json").read_text())
    blob = two_versions / "published" / "blobs" / record["files"]["policy.json"].split(":")[1]
    blob.write_bytes(blob.read_bytes().replace(b"epsilon", b"epsilom"))
    with pytest.raises(IntegrityError) as caught:
        materialize(two_versions, "1.0.0", tmp_path / "out")
    assert caught.value.code == "rules.archive.blob_altered"


def test_a_missing_blob_or_unknown_version_is_a_coded_error(two_versions: Path, tmp_path: Path) -> None:
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(PublicationError) as busy:
        materialize(two_versions, "1.1.0", tmp_path / "full")
    assert busy.value.code == "rules.archive.target_not_empty"
    with pytest.raises(PublicationError) as unknown:
        materialize(two_versions, "9.9.9", tmp_path / "b")
    assert unknown.value.code == "rules.archive.unknown_version"
    record = json.loads((two_versions / "published" / "1.0.0.json").read_text())
    (two_versions / "published" / "blobs" / record["files"]["acceptance.json"].split(":")[1]).unlink()
    with pytest.raises(IntegrityError) as incomplete:
        materialize(two_versions, "1.0.0", tmp_path / "a")
    assert incomplete.value.code == "rules.archive.incomplete"


def test_versions_and_export_commands(two_versions: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "versions", "--rules", str(two_versions)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["1.0.0", "1.1.0"] and all(" whole " in line for line in lines)
    assert main(["rules", "export", "1.0.0", "--out", str(tmp_path / "x"), "--rules", str(two_versions)]) == 0
    shutil.rmtree(two_versions / "published" / "blobs")
    assert main(["rules", "export", "1.0.0", "--out", str(tmp_path / "y"), "--rules", str(two_versions)]) == 2
    assert "rules.archive.incomplete" in capsys.readouterr().err
