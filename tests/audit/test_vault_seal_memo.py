"""A cipher's memo of sealed tokens gives exactly the ciphertext a fresh cipher under the same key computes
(AES-SIV is deterministic), on first and repeated seals, and every token still opens to its text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit import vault
from audit.vault import FieldCipher

_KEY = bytes(range(vault.DATA_KEY_BYTES))


@given(texts=st.lists(st.text(alphabet="abé", max_size=3) | st.text(max_size=20), max_size=8))
def test_memoised_seal_equals_a_fresh_cipher(texts: list[str]) -> None:
    cipher = FieldCipher("conv-1", _KEY)
    for text in texts + texts:
        token = cipher.seal(text)
        assert token == FieldCipher("conv-1", _KEY).seal(text)
        assert cipher.open(token) == text


def test_tokens_differ_by_conversation() -> None:
    assert FieldCipher("a", _KEY).seal("x") != FieldCipher("b", _KEY).seal("x")


def test_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vault, "_SEALED_MEMO_ENTRIES", 3)
    cipher = FieldCipher("conv-1", _KEY)
    for i in range(10):
        cipher.seal(str(i))
        assert len(cipher._sealed) <= 3
