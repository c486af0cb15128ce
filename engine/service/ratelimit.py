"""Token-bucket rate limiting per (endpoint family, client), in process.

Each engine process limits on its own; behind a load balancer the effective limit is per process, which
is the usual trade for not needing a shared cache. The clock is injectable so tests never sleep.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import structlog

from engine.service.errors import RateLimitError
from engine.service.limits import Bucket

log = structlog.get_logger("engine.service.ratelimit")


class RateLimiter:
    def __init__(
        self,
        buckets: dict[str, Bucket],
        *,
        max_clients: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._buckets = buckets
        self._max_clients = max_clients
        self._clock = clock
        self._lock = threading.Lock()
        # (family, client) -> (tokens, last refill time); LRU-bounded so many addresses cannot exhaust memory
        self._state: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()

    def check(self, family: str, client: str) -> None:
        """Take one token or raise ``RateLimitError`` (code ``rate.limited``) with a Retry-After hint."""
        bucket = self._buckets[family]
        now = self._clock()
        key = (family, client)
        with self._lock:
            tokens, last = self._state.pop(key, (float(bucket.capacity), now))
            tokens = min(float(bucket.capacity), tokens + (now - last) * bucket.refill_per_second)
            if tokens < 1.0:
                self._state[key] = (tokens, now)
                retry_after = max(1, math.ceil((1.0 - tokens) / bucket.refill_per_second))
                log.info("service.rate.limited", family=family, client=client, retry_after_s=retry_after)
                raise RateLimitError(
                    f"too many {family.replace('_', ' ')} requests; retry in {retry_after}s",
                    retry_after_s=retry_after,
                )
            self._state[key] = (tokens - 1.0, now)
            while len(self._state) > self._max_clients:
                self._state.popitem(last=False)
