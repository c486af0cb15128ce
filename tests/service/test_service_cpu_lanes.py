"""``benchmarks.service_cpu.lanes``: the closed-loop lanes keep each conversation's turns together and in order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from benchmarks.service_cpu import lanes

Turn = tuple[str, str, str]


@st.composite
def plans(draw: st.DrawFn) -> list[Turn]:
    conversations = draw(st.integers(min_value=1, max_value=12))
    plan: list[Turn] = []
    for index in range(conversations):
        turns = draw(st.integers(min_value=1, max_value=6))
        plan.extend((f"c{index}", f"t{index}", f"m{index}.{n}") for n in range(turns))
    return plan


@given(plans(), st.integers(min_value=1, max_value=8))
def test_lanes_deal_whole_conversations_in_order(plan: list[Turn], count: int) -> None:
    dealt = lanes(plan, count)
    assert len(dealt) == count
    assert sorted(t for lane in dealt for t in lane) == sorted(plan)  # nothing lost, nothing repeated
    owner = {t[0]: i for i, lane in enumerate(dealt) for t in lane}
    for i, lane in enumerate(dealt):
        assert all(owner[t[0]] == i for t in lane)  # a conversation lives in one lane
        for cid in {t[0] for t in lane}:
            assert [t for t in lane if t[0] == cid] == [t for t in plan if t[0] == cid]  # in its own order
    conversations = len({t[0] for t in plan})
    busy = sum(1 for lane in dealt if lane)
    assert busy == min(count, conversations)  # conversations are dealt round robin, so no lane idles needlessly
