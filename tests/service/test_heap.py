"""The serving process's start-up heap is frozen out of the garbage collector's scans once warm
(engine/service/heap.py), and only when the limits file says so."""

from __future__ import annotations

import argparse
import gc
import json
import socket
import sys
import weakref
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from engine.service import heap
from engine.service.errors import LimitsError
from engine.service.limits import DEFAULT_LIMITS, ServiceLimits, load_limits
from tests.service.helpers import generous_limits


class Node:
    def __init__(self) -> None:
        self.other: Any = None


@pytest.fixture
def thawed() -> Iterator[None]:
    """Each test starts and ends with nothing frozen, so freezing here never outlives the test."""
    gc.unfreeze()
    yield
    gc.unfreeze()
    gc.collect()


def _tracked(obj: object) -> bool:
    return any(o is obj for o in gc.get_objects())


def test_freeze_collects_startup_garbage_then_exempts_the_survivors(thawed: None) -> None:
    kept = Node()
    kept.other = [kept]  # a live cycle: the kind of object a loaded index is made of
    garbage = Node()
    garbage.other = garbage  # unreachable once the name goes: only the collector can free it
    dead = weakref.ref(garbage)
    del garbage
    assert _tracked(kept)

    settled = heap.settle_heap(freeze=True)

    assert dead() is None, "garbage left by start-up was frozen instead of collected"
    # frozen objects that die later leave the permanent generation: the count can only have shrunk since
    assert settled.frozen and 0 < gc.get_freeze_count() <= settled.objects
    assert not _tracked(kept), "a start-up object is still scanned by every collection"
    made_later = Node()
    assert _tracked(made_later), "objects made while serving must still be collected"


def test_off_leaves_the_collector_alone(thawed: None) -> None:
    kept = Node()
    settled = heap.settle_heap(freeze=False)
    assert settled == heap.HeapSettled(False, 0, 0.0)
    assert gc.get_freeze_count() == 0 and _tracked(kept)


def test_default_limits_freeze_and_the_setting_must_be_a_boolean() -> None:
    assert load_limits().freeze_heap_after_warm_up is True
    assert generous_limits().freeze_heap_after_warm_up is False  # tests build many services in one process
    data = json.loads(DEFAULT_LIMITS.read_text())
    for bad in ("yes", 1, None):
        data["freeze_heap_after_warm_up"] = bad
        with pytest.raises(LimitsError):
            ServiceLimits.from_dict(data)
    del data["freeze_heap_after_warm_up"]
    with pytest.raises(LimitsError):
        ServiceLimits.from_dict(data)


@pytest.mark.parametrize("freeze", [True, False])
def test_a_server_settles_its_heap_after_building_and_before_listening(
    monkeypatch: pytest.MonkeyPatch, freeze: bool
) -> None:
    from engine.service import runner, serving

    events: list[str] = []

    class FakeBuilt:
        app = SimpleNamespace(state=SimpleNamespace(limits=generous_limits(freeze_heap_after_warm_up=freeze)))

        def close(self) -> None:
            events.append("closed")

    def build(_: argparse.Namespace) -> FakeBuilt:
        events.append("built")
        return FakeBuilt()

    def settle(*, freeze: bool) -> heap.HeapSettled:
        events.append(f"settled freeze={freeze}")
        return heap.HeapSettled(freeze, 0, 0.0)

    def listener() -> socket.socket:
        events.append("listening")
        raise OSError("stop here: the port is not the point of this test")

    monkeypatch.setattr(runner, "build_from_args", build)
    monkeypatch.setattr(heap, "settle_heap", settle)
    monkeypatch.setattr(heap, "set_switch_interval", lambda ms: events.append(f"switch interval {ms:g} ms"))
    with pytest.raises(OSError):
        serving.run_server(argparse.Namespace(), listener, index=0, print_banner=False)
    assert events == ["built", f"settled freeze={freeze}", "switch interval 5 ms", "listening", "closed"]


def test_switch_interval_is_set_from_the_limits_and_must_be_positive() -> None:
    assert load_limits().switch_interval_ms == 5.0  # CPython's own: 1 ms showed no end-to-end gain
    previous = sys.getswitchinterval()
    try:
        heap.set_switch_interval(2.0)
        assert sys.getswitchinterval() == pytest.approx(0.002)
    finally:
        sys.setswitchinterval(previous)
    data = json.loads(DEFAULT_LIMITS.read_text())
    for bad in (0, -1, "1", None, 1000):
        data["switch_interval_ms"] = bad
        with pytest.raises(LimitsError):
            ServiceLimits.from_dict(data)
