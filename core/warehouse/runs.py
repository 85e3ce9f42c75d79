"""Run control in the warehouse: episode claims, interrupted runs, infrastructure failures.

Why in the warehouse: the processes that need to agree — two identical
commands started together, a command started after a crash, the dashboard —
share nothing but the file. A run claims the episodes it is about to run (one
short transaction per batch); another run skips episodes claimed by a live
process and takes over those whose owner is gone (core.liveness). A run's
`started` status carries its owner, so whoever looks next marks a run whose
process is gone as `interrupted` instead of leaving it `started` forever.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.liveness import owner_alive
from core.warehouse.records import LEGACY_INFRA_SQL, TRACELESS_SQL, now
from core.warehouse.store import Store, insert_rows

ALIVE = Callable[[str], bool]


@dataclass
class Claimed:
    """The outcome of a claim: episodes now ours, already stored, or held by a live run."""

    mine: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    held: list[str] = field(default_factory=list)


def _claim_owner_alive(owner: str) -> bool:
    """A claim owner is `host:pid:start:token`; the process part decides."""
    return owner_alive(owner)


class RunControl(Store):
    """Claims, interrupted runs and infrastructure failures (mixed into `Warehouse`)."""

    def claim_episodes(
        self,
        episode_ids: Sequence[str],
        run_id: str,
        owner: str,
        *,
        alive: ALIVE = _claim_owner_alive,
        traces: bool = False,
    ) -> Claimed:
        """Claim the given episodes for `owner`, in one transaction.

        Stored episodes come back as `done` (with `traces`, only those stored with their trace);
        episodes claimed by another owner that is still alive as `held`; the rest (free, ours
        already, or held by a dead owner) become ours.
        """
        out = Claimed()
        ids = list(dict.fromkeys(episode_ids))
        if not ids:
            return out
        with self.transaction() as con:
            done = {
                r[0]
                for r in con.execute(
                    "SELECT episode_id FROM episodes WHERE episode_id IN (SELECT unnest(?::VARCHAR[])) "
                    f"AND NOT {LEGACY_INFRA_SQL}" + (f" AND NOT {TRACELESS_SQL}" if traces else ""),
                    [ids],
                ).fetchall()
            }
            claims = dict(
                con.execute(
                    "SELECT episode_id, owner FROM episode_claims WHERE episode_id IN (SELECT unnest(?::VARCHAR[]))",
                    [ids],
                ).fetchall()
            )
            stale = []
            for eid in ids:
                if eid in done:
                    out.done.append(eid)
                    continue
                holder = claims.get(eid)
                if holder is None or holder == owner:
                    out.mine.append(eid)
                elif alive(holder):
                    out.held.append(eid)
                else:
                    stale.append(eid)
                    out.mine.append(eid)
            if stale:
                con.execute(
                    "DELETE FROM episode_claims WHERE episode_id IN (SELECT unnest(?::VARCHAR[]))", [stale]
                )
            fresh = [e for e in out.mine if claims.get(e) != owner]
            insert_rows(
                con,
                "episode_claims",
                [{"episode_id": e, "run_id": run_id, "owner": owner, "claimed_at": now()} for e in fresh],
            )
        return out

    def release_claims(self, episode_ids: Iterable[str], owner: str) -> None:
        """Drop `owner`'s claims on these episodes (finished, or given up on cancel/abort)."""
        ids = list(episode_ids)
        if not ids:
            return
        with self.transaction() as con:
            con.execute(
                "DELETE FROM episode_claims WHERE owner = ? AND episode_id IN (SELECT unnest(?::VARCHAR[]))",
                [owner, ids],
            )

    def mark_interrupted(self, *, alive: ALIVE = owner_alive) -> list[str]:
        """Append `interrupted` for every run whose latest status is `started` and whose owner is gone."""
        rows = self.rows(
            """SELECT run_id, arg_max(status, ts) AS status, arg_max(detail, ts) AS detail
               FROM run_status GROUP BY run_id HAVING arg_max(status, ts) = 'started'"""
        )
        gone = []
        for run_id, _status, detail in rows:
            try:
                owner = json.loads(detail or "{}").get("owner")
            except (ValueError, AttributeError):
                owner = None
            if owner and not alive(owner):
                gone.append((run_id, owner))
        if gone:
            self.insert(
                "run_status",
                [
                    {
                        "run_id": rid,
                        "status": "interrupted",
                        "detail": json.dumps({"owner": owner, "reason": "its process is gone"}),
                        "ts": now(),
                    }
                    for rid, owner in gone
                ],
            )
        return [rid for rid, _ in gone]

    def infra_failures(self, run_id: str | None = None) -> list[dict[str, Any]]:
        """Recorded infrastructure failures (newest first), of one run or all."""
        where, params = ("WHERE run_id = ?", [run_id]) if run_id else ("", [])
        df = self.query(f"SELECT * FROM infra_failures {where} ORDER BY ts DESC", params)
        return df.to_dict("records")


def infra_failure_row(failure: Mapping[str, Any]) -> dict[str, Any]:
    """A row of `infra_failures` (one attempt; its id includes the time so attempts never collide)."""
    from core.warehouse.records import content_hash

    ts = failure.get("ts") or now()
    return {
        "failure_id": content_hash("infra", failure["episode_id"], str(ts), failure.get("run_id")),
        "episode_id": failure["episode_id"],
        "run_id": failure.get("run_id"),
        "benchmark": failure.get("benchmark"),
        "task_id": failure.get("task_id"),
        "repeat": failure.get("repeat"),
        "model": failure.get("model"),
        "error_class": failure.get("error_class"),
        "error": failure.get("error"),
        "ts": ts,
    }
