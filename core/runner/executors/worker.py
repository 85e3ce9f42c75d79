"""What runs inside a Ray worker: an actor that holds a benchmark and runs whole episodes.

An `EpisodeActor` lives as long as the command that started it: it builds
each benchmark it is asked for once (from the registry recipe, so user
folders and MCP servers start their own tool processes on the worker) and a
local model loads once per worker process on its first call. Each `run` executes one
planned episode end to end — agent, sandbox, model calls through the
gateway — and returns the finished record with the accounting entries and
new cache rows the episode produced. The worker never opens the warehouse.

The LLM response cache (see docs/scale-out.md): a worker looks a request up
in its own entries, then — when the driver's cache held that key at the
run's start — in the driver's cache through the relay actor (`RelayCache`);
what it had to compute travels back with the episode and the driver stores
it. Relay lookups are driver round trips, but an uncached
model call costs far more, and a cache the driver owns stays the one cache.
"""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from typing import Any

from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import benchmark_key
from core.llm import Gateway, use
from core.llm.cache import MemoryCache
from core.llm.ledger import Ledger, LedgerEntry
from core.runner.executors.base import EpisodeResult, EpisodeWork, execute

log = logging.getLogger(__name__)
RELAY_TIMEOUT_S = 10.0  # a lookup the driver does not answer in time is a miss, not a stall

# One finished episode as it crosses the network: the record, its accounting, its new cache rows.
Shipped = tuple[EpisodeResult, list[LedgerEntry], list[dict[str, Any]]]


class RelayCache:
    """The worker's cache: its own entries first, then the driver's cache through the relay."""

    def __init__(self, relay: Any, timeout_s: float = RELAY_TIMEOUT_S) -> None:
        self.relay = relay
        self.timeout_s = timeout_s
        self.local = MemoryCache()
        self.known: frozenset[str] | None = None  # the driver's keys at the run's start (None: ask always)
        self._new: list[str] = []

    def get(self, key: str) -> dict[str, Any] | None:
        hit = self.local.get(key)
        if hit is not None or self.relay is None or (self.known is not None and key not in self.known):
            return hit
        import ray

        try:
            return ray.get(self.relay.lookup.remote(key, self.timeout_s), timeout=self.timeout_s + 5)
        except Exception as exc:  # noqa: BLE001 - an unreachable driver cache is a miss
            log.warning("cache relay lookup failed (treated as a miss): %s", exc)
            return None

    def put(self, key: str, *row: Any) -> None:
        """Store as `MemoryCache.put` does (model, request, response, tokens in/out, cost) and remember it."""
        self.local.put(key, *row)
        self._new.append(key)

    def take_new(self) -> list[dict[str, Any]]:
        """Rows computed since the last call, as the cache stored them (they ship to the driver's cache)."""
        keys, self._new = set(self._new), []
        return [row for row in self.local.rows() if row["key"] in keys]


class EpisodeActor:
    """A long-lived Ray actor: one gateway, the benchmarks it was asked for, one episode at a time."""

    KEEP = 2  # benchmarks kept built (an optimizer alternates at most between a base and its variant)

    def __init__(self, relay: Any) -> None:
        self.cache = RelayCache(relay)
        self.gateway = Gateway(cache=self.cache)
        use(self.gateway)
        self._work: dict[str, EpisodeWork] = {}
        self._benchmarks: dict[str, Benchmark] = {}

    def pid(self) -> int:
        return os.getpid()

    def run(self, session: str, box: list[Any], task: Task, repeat: int) -> Shipped:
        """Run one episode of session `session` (its shared work in `box`, fetched once)."""
        work = self._session(session, box)
        self.gateway.ledger = Ledger()  # this episode's calls only
        result = execute(work, task, repeat)
        return result, self.gateway.ledger.entries(), self.cache.take_new()

    def _session(self, session: str, box: list[Any]) -> EpisodeWork:
        work = self._work.get(session)
        if work is None:
            import ray

            payload, scripts, source, key, known = ray.get(box[0])
            _register_scripts(scripts)
            self.cache.known = known
            work = replace(payload, benchmark=self._benchmark(source, key))
            self._work = {session: work}  # one run at a time: the previous run's work can go
            self.cache.local.clear()  # between runs the driver's cache is the one truth
        return work

    def _benchmark(self, source: Any, key: str) -> Benchmark:
        """The benchmark built from `source` (a recipe with `load()`, or the benchmark itself), kept for later runs."""
        memo = f"{key}|{source!r}"
        bench = self._benchmarks.pop(memo, None)
        if bench is None:
            bench = source.load() if hasattr(source, "load") else source
            if benchmark_key(bench) != key:
                raise RuntimeError(
                    f"this worker built benchmark {benchmark_key(bench)!r}, the driver runs {key!r}: "
                    "install the same benchmark version (data, user folder) on every node"
                )
        self._benchmarks[memo] = bench  # most recently used last
        while len(self._benchmarks) > self.KEEP:
            old = self._benchmarks.pop(next(iter(self._benchmarks)))
            close = getattr(old, "close", None)
            if callable(close):
                close()
        return bench


def _register_scripts(scripts: list[tuple[str, Any, str]]) -> None:
    """The driver's scripted models, under their names and cache salts (tests and benchmarks)."""
    if not scripts:
        return
    from core.llm.scripted import SCRIPTED, ScriptedModel

    for name, replies, salt in scripts:
        known = SCRIPTED.scripts.get(name)
        if known is None or known.salt != salt:
            SCRIPTED.scripts[name] = ScriptedModel(name=name, replies=replies, salt=salt)
