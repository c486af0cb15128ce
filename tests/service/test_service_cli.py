"""`grace serve` is registered and refuses bad configuration with stable codes before starting anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import build_parser, main
from engine.errors import GraceError
from engine.service.config import ServiceConfig, config_from_env, origins_from


def test_serve_is_a_grace_command() -> None:
    args = build_parser().parse_args(["serve", "--demo", "--port", "0", "--cors-origin", "https://a.example"])
    assert (args.demo, args.port, args.host, args.cors_origin) == (True, 0, "127.0.0.1", ["https://a.example"])


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["serve", "--port", "0"], "service.no_goals"),
        (["serve", "--demo", "--corpus", "no-equals-sign"], "service.corpus_arg"),
    ],
)
def test_serve_refuses_bad_arguments(
    argv: list[str], code: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--data-dir", str(tmp_path)]) == 2
    assert f"error {code}:" in capsys.readouterr().err


def test_operator_token_is_required_and_strong() -> None:
    with pytest.raises(GraceError) as missing:
        config_from_env({})
    assert missing.value.code == "service.token_missing"
    with pytest.raises(GraceError) as weak:
        ServiceConfig(operator_token="short")
    assert weak.value.code == "service.token_weak"
    config = config_from_env({"GRACE_OPERATOR_TOKEN": "t" * 20, "GRACE_CORS_ORIGINS": "https://a.example/, http://b"})
    assert config.cors_origins == ("https://a.example", "http://b")


def test_cors_origins_must_be_urls() -> None:
    with pytest.raises(GraceError) as info:
        origins_from("a.example")
    assert info.value.code == "service.cors_invalid"
