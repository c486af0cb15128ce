"""``grace serve`` defaults every native thread pool to one thread per engine process, keeping the operator's."""

from __future__ import annotations

from engine.service.native_threads import NATIVE_THREAD_VARIABLES, limit_native_threads


def test_unset_variables_default_to_one_and_set_ones_are_kept() -> None:
    env = {"OMP_NUM_THREADS": "4", "PATH": "/bin"}
    limit_native_threads(env)
    assert env["OMP_NUM_THREADS"] == "4"
    assert all(env[name] == "1" for name in NATIVE_THREAD_VARIABLES if name != "OMP_NUM_THREADS")
    assert env["PATH"] == "/bin"
