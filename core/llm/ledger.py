"""Per-process token and cost accounting of every LLM call.

Why: the paper reports tokens and minutes per optimized tool, and users want
to know what a run cost. Every `complete()` appends one entry to its
gateway's ledger (cache hits included, flagged); totals can be asked per run,
step and tool, and entries are flushed to the warehouse's `llm_calls` table
through an optional sink.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

log = logging.getLogger(__name__)

Sink = Callable[[list[dict[str, Any]]], Any]


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


@dataclass(frozen=True)
class LedgerEntry:
    """One call. Columns match the warehouse table `llm_calls`."""

    call_id: str
    run_id: str | None
    purpose: str
    model: str
    tokens_in: int
    tokens_out: int
    cost: float
    latency_s: float
    cache_hit: bool
    tool: str | None = None  # the tool the call served (optimizers), None for agents
    error: str | None = None
    ts: datetime = field(default_factory=_now)

    def row(self) -> dict[str, Any]:
        return asdict(self)


class Ledger:
    """Thread-safe list of entries with totals and an optional flushing sink."""

    def __init__(self, sink: Sink | None = None, flush_every: int = 50) -> None:
        self._entries: list[LedgerEntry] = []
        self._flushed = 0
        self._lock = threading.Lock()
        self._flush_lock = threading.Lock()
        self.sink = sink
        self.flush_every = flush_every

    def record(self, entry: LedgerEntry) -> None:
        with self._lock:
            self._entries.append(entry)
            pending = len(self._entries) - self._flushed
        if self.sink is not None and pending >= self.flush_every:
            self.flush()

    def entries(
        self, *, run_id: str | None = None, purpose: str | None = None, tool: str | None = None
    ) -> list[LedgerEntry]:
        with self._lock:
            items = list(self._entries)
        return [
            e
            for e in items
            if (run_id is None or e.run_id == run_id)
            and (purpose is None or e.purpose == purpose)
            and (tool is None or e.tool == tool)
        ]

    def totals(
        self, *, run_id: str | None = None, purpose: str | None = None, tool: str | None = None
    ) -> dict[str, Any]:
        """Sums over matching entries.

        `tokens_in`/`tokens_out` count every call including cache hits (the
        work the method needed); `cost` is money actually spent (cache hits
        cost nothing); `cost_uncached` is what it would have cost without the cache.
        """
        rows = self.entries(run_id=run_id, purpose=purpose, tool=tool)
        return {
            "calls": len(rows),
            "cache_hits": sum(e.cache_hit for e in rows),
            "errors": sum(e.error is not None for e in rows),
            "tokens_in": sum(e.tokens_in for e in rows),
            "tokens_out": sum(e.tokens_out for e in rows),
            "cost": sum(e.cost for e in rows if not e.cache_hit),
            "cost_uncached": sum(e.cost for e in rows),
            "latency_s": sum(e.latency_s for e in rows),
        }

    def by(self, key: str = "purpose", *, run_id: str | None = None) -> dict[Any, dict[str, Any]]:
        """Totals grouped by an entry attribute (purpose, model or run_id)."""
        groups: dict[Any, list[LedgerEntry]] = {}
        for e in self.entries(run_id=run_id):
            groups.setdefault(getattr(e, key), []).append(e)
        out = {}
        for k, rows in groups.items():
            sub = Ledger()
            sub._entries = rows
            out[k] = sub.totals()
        return out

    def flush(self) -> int:
        """Send entries not yet flushed to the sink; returns how many were sent.

        A failing sink keeps the entries pending (they are retried on the next
        flush) and logs a warning: accounting must not fail a run.
        """
        if self.sink is None:
            return 0
        with self._flush_lock:
            with self._lock:
                batch = self._entries[self._flushed :]
            if not batch:
                return 0
            try:
                self.sink([e.row() for e in batch])
            except Exception as exc:  # noqa: BLE001
                log.warning("could not flush %d LLM call rows: %s", len(batch), exc)
                return 0
            with self._lock:
                self._flushed += len(batch)
            return len(batch)

    def flush_with(self, writer: Callable[[list[dict[str, Any]]], Any]) -> int:
        """Hand the entries not yet flushed to `writer` (e.g. a transaction that also writes
        episodes); they count as flushed only when it returns. Unlike `flush`, a failing
        writer raises: the caller's transaction failed, and it must know."""
        with self._flush_lock:
            with self._lock:
                batch = self._entries[self._flushed :]
            writer([e.row() for e in batch])
            with self._lock:
                self._flushed += len(batch)
            return len(batch)

    def extend(self, entries: Iterable[LedgerEntry]) -> None:
        for e in entries:
            self.record(e)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._flushed = 0
