"""Fill the rule archive (rules/published/blobs) for versions published before bundles were kept whole.

Every file hash a publication record lists is looked up in the repository's history (any commit, any path under
rules/); a blob is stored only when its sha256 equals the recorded hash, so nothing unverified enters the archive.
Usage: python scripts/archive_rules_from_git.py   (from the repository root; prints what it recovered)
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

from engine.rules.archive import missing_blobs, publication, published_versions

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"


def main() -> int:
    wanted: set[str] = set()
    for version in published_versions(RULES):
        files = publication(RULES, version)["files"]
        wanted |= {files[rel].split(":", 1)[1] for rel in missing_blobs(RULES, version)}
    objects = subprocess.run(["git", "log", "--all", "-m", "--format=", "--raw", "--no-abbrev", "--", "rules"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    shas = {line.split()[3] for line in objects.splitlines() if line.startswith(":")} - {"0" * 40}
    current = subprocess.run(["git", "ls-tree", "-r", "HEAD", "rules"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
    shas |= {line.split()[2] for line in current.splitlines()}
    blobs = RULES / "published" / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)
    found = 0
    for sha in sorted(shas):
        data = subprocess.run(["git", "cat-file", "blob", sha], cwd=ROOT, capture_output=True, check=False).stdout
        digest = hashlib.sha256(data).hexdigest()
        if digest in wanted and not (blobs / digest).exists():
            (blobs / digest).write_bytes(data)
            found += 1
    for version in published_versions(RULES):
        missing = missing_blobs(RULES, version)
        print(f"{version}: {'whole' if not missing else f'{len(missing)} file(s) not found: {missing[:3]}'}")
    print(f"{found} blob(s) recovered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
