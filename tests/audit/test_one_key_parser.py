"""GRACE_AUDIT_KEY means one key wherever it is read: the offline runtimes (grace chat, eval) and the service
(grace serve) both decode it with audit.keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.errors import AuditKeyError
from engine.runtimes import audit_key_from_env
from engine.service.demo import audit_key


@pytest.mark.parametrize("text", ["hex:" + "ab" * 32, "base64:" + "A" * 43, "a long passphrase of many words",
                                  "ab" * 32])
def test_chat_and_serve_read_the_same_key(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str) -> None:
    monkeypatch.setenv("GRACE_AUDIT_KEY", text)
    assert audit_key_from_env() == audit_key(tmp_path)


def test_a_short_or_malformed_key_is_refused_with_its_code(monkeypatch: pytest.MonkeyPatch) -> None:
    for text, code in (("tiny", "audit.key.too_short"), ("hex:zz", "audit.key.malformed")):
        monkeypatch.setenv("GRACE_AUDIT_KEY", text)
        with pytest.raises(AuditKeyError) as info:
            audit_key_from_env()
        assert info.value.code == code


def test_no_key_gives_a_fresh_random_key_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRACE_AUDIT_KEY", raising=False)
    first, second = audit_key_from_env(), audit_key_from_env()
    assert len(first) == 32 and first != second
