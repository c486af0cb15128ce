from __future__ import annotations

from pathlib import Path

from tests.support.page_cache import prefetch


def test_prefetch_reads_big_files_whole_and_skips_small_ones_links_and_missing_paths(tmp_path: Path) -> None:
    big = tmp_path / "bin" / "program"
    big.parent.mkdir()
    big.write_bytes(b"x" * (3 * (1 << 20) + 17))  # more than one chunk, not a multiple of it
    (tmp_path / "bin" / "small.pak").write_bytes(b"y" * 100)
    nested = tmp_path / "bin" / "locales" / "en.pak"
    nested.parent.mkdir()
    nested.write_bytes(b"z" * 2048)
    (tmp_path / "bin" / "link").symlink_to(big)
    assert prefetch(tmp_path / "bin", tmp_path / "missing", min_bytes=1 << 20) == 3 * (1 << 20) + 17
    assert prefetch(tmp_path / "bin", min_bytes=1000) == 3 * (1 << 20) + 17 + 2048
    assert prefetch(big, min_bytes=0) == big.stat().st_size
