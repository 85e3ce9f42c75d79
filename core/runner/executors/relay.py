"""The cache relay: workers read the driver's LLM response cache without opening the warehouse.

Why this shape. The cache lives in the warehouse, which only the driver may
open; a worker cannot know in advance which entries its episode will ask
for (each reply decides the next request), so shipping "the relevant
entries" up front would mean shipping the whole cache. Instead a small
threaded actor on the cluster holds the questions: a worker's lookup waits
there, the driver's pump thread takes the waiting keys in batches, answers
them from the driver's cache store and the lookup returns. New entries do
not take this path: they travel back with the finished episode.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

PUMP_WAIT_S = 0.5  # how long one take() waits for questions (bounds how fast the pump notices a stop)


class CacheRelay:
    """Questions from workers, answers from the driver (run as a threaded Ray actor)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._asked: list[tuple[str, str]] = []
        self._waiting: set[str] = set()
        self._answers: dict[str, Any] = {}

    def lookup(self, key: str, timeout_s: float) -> dict[str, Any] | None:
        """The driver's cached response for `key` (None: a miss, or no answer within `timeout_s`)."""
        rid = uuid.uuid4().hex
        with self._cond:
            self._asked.append((rid, key))
            self._waiting.add(rid)
            self._cond.notify_all()
            self._cond.wait_for(lambda: rid in self._answers, timeout=timeout_s)
            self._waiting.discard(rid)
            return self._answers.pop(rid, None)

    def take(self, timeout_s: float) -> list[tuple[str, str]]:
        """The (request id, key) pairs asked since the last take (waits up to `timeout_s` for one)."""
        with self._cond:
            self._cond.wait_for(lambda: bool(self._asked), timeout=timeout_s)
            asked, self._asked = self._asked, []
            return asked

    def answer(self, answers: dict[str, Any]) -> None:
        with self._cond:
            self._answers.update({rid: a for rid, a in answers.items() if rid in self._waiting})
            self._cond.notify_all()


class Pump(threading.Thread):
    """The driver's side: answers the relay's questions from `lookup` (the driver's cache)."""

    def __init__(self, relay: Any, lookup: Callable[[str], dict[str, Any] | None]) -> None:
        super().__init__(name="cache-relay", daemon=True)
        self.relay = relay
        self.lookup = lookup
        self._halt = threading.Event()

    def run(self) -> None:
        import ray

        while not self._halt.is_set():
            try:
                asked = ray.get(self.relay.take.remote(PUMP_WAIT_S))
            except Exception:  # noqa: BLE001 - the relay restarts or the cluster goes away
                if self._halt.wait(PUMP_WAIT_S):
                    return
                continue
            if asked:
                answers = {rid: self._get(key) for rid, key in asked}
                with contextlib.suppress(Exception):
                    self.relay.answer.remote(answers)

    def _get(self, key: str) -> dict[str, Any] | None:
        try:
            return self.lookup(key)
        except Exception:  # noqa: BLE001 - a cache read failure is a miss
            return None

    def stop(self, wait_s: float = PUMP_WAIT_S * 2) -> None:
        self._halt.set()
        deadline = time.monotonic() + wait_s
        self.join(timeout=max(0.0, deadline - time.monotonic()))
