"""Stored evolve runs as tables and figures' data: epochs (Fig. 2), lifetimes (Fig. 4), Table 1; export.

Everything here reads the warehouse (`core.warehouse.reads` and plain SELECTs
on the SOP tables) and returns frames or Markdown; the CLI, the dashboard page
and docs/RESULTS.md all render these, so they never disagree.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd

from core.docs.render import render_mcp, render_openai
from core.sop.model import Toolset
from core.sop.store import load_state
from core.tables import markdown_table


def _domains(value: Any) -> str:
    try:
        items = json.loads(value) if isinstance(value, str) else list(value or [])
    except ValueError:
        return str(value)
    return ",".join(str(x) for x in items) or "all domains"


def runs(wh: Any) -> pd.DataFrame:
    """Every evolve run with its latest status and, when finished, its result row."""
    df = wh.query(
        """SELECT r.run_id, r.name, r.benchmark, r.created_at,
                  json_extract_string(r.config, '$.variant') AS variant,
                  json_extract_string(r.config, '$.constructor') AS constructor,
                  json_extract_string(r.config, '$.agent.model') AS model,
                  json_extract(r.config, '$.seed')::INT AS seed,
                  json_extract_string(r.config, '$.domains') AS domains,
                  coalesce(json_extract(r.config, '$.doc_links')::BOOLEAN, false) AS doc_links,
                  coalesce(json_extract_string(r.config, '$.offer'), 'beside') AS offer,
                  json_extract_string(r.config, '$.explorer.model') AS explorer,
                  coalesce(json_extract_string(r.config, '$.max_train_tasks'), 'all') AS train_cap,
                  coalesce(json_extract_string(r.config, '$.max_test_tasks'), 'all') AS test_cap,
                  json_extract(r.config, '$.epochs')::INT AS n_epochs,
                  -- a result row is written only when a run finishes (restored from the run archive, a
                  -- run has its result but no status log)
                  coalesce((SELECT s.status FROM run_status s WHERE s.run_id = r.run_id ORDER BY s.ts DESC LIMIT 1),
                           CASE WHEN x.run_id IS NOT NULL THEN 'finished' END) AS status,
                  (SELECT count(*) FROM sop_epochs e WHERE e.run_id = r.run_id) AS epochs,
                  x.best_epoch, x.n_sops, x.train_ts, x.base_train_ts, x.test_ts, x.base_test_ts, x.n_test
           FROM runs r LEFT JOIN sop_results x USING (run_id)
           WHERE r.kind = 'sop' ORDER BY r.created_at DESC"""
    )
    df["domains"] = df["domains"].map(_domains)
    df["method"] = [
        _method(v, d, o, e)
        for v, d, o, e in zip(df["variant"], df["doc_links"], df["offer"], df["explorer"], strict=True)
    ]
    return df


def _method(variant: str, doc_links: Any, offer: str, explorer: Any) -> str:
    """The variant with the settings beyond the paper's that change what is measured."""
    extras = [
        *(["doc links"] if bool(doc_links) else []),
        *(["instead of the wrapped writes"] if offer == "instead" else []),
        *([f"explorer {explorer}"] if isinstance(explorer, str) and explorer else []),
    ]
    return f"{variant} ({', '.join(extras)})" if extras else str(variant)


def epochs_frame(wh: Any, run_id: str) -> pd.DataFrame:
    """Per epoch: training TS / TC, reasoning rounds, toolset size, changes (Fig. 2 and the size curve)."""
    df = wh.query(
        """SELECT epoch, ts, tc, rounds, tokens, len(evaluated) AS sops, len(kept) AS kept, len(added) AS added,
                  len(merged) AS merged, len(pruned) AS pruned, sop_calls, n_episodes, eval_run, toolset_id
           FROM sop_epochs WHERE run_id = ? ORDER BY epoch""",
        [run_id],
    )
    return df


def lifecycle_frame(wh: Any, run_id: str) -> pd.DataFrame:
    """One row per SOP and epoch it was evaluated in: its invocations, successes, and whether it was pruned there.

    Fig. 4: a bar per SOP across the epochs it lived, `successes/invocations` in
    each block, a cross where it was pruned. A run restored from the results archive has no SOP rows: the
    name and origin its usage rows carry stand in.
    """
    return wh.query(
        """SELECT u.sop_id, coalesce(s.name, json_extract_string(u.detail, '$.name'), u.sop_id) AS name,
                  coalesce(s.origin, json_extract_string(u.detail, '$.origin'), '') AS origin,
                  u.epoch, u.invocations, u.successes, u.optimal, u.partial, u.neutral, u.negative, u.defects,
                  coalesce(d.action = 'pruned', false) AS pruned, coalesce(d.reason, '') AS reason
           FROM sop_usage u LEFT JOIN sops s USING (sop_id)
           LEFT JOIN sop_decisions d ON d.run_id = u.run_id AND d.epoch = u.epoch AND d.sop_id = u.sop_id
                                    AND d.action = 'pruned'
           WHERE u.run_id = ? ORDER BY 2, u.epoch""",
        [run_id],
    )


def decisions_frame(wh: Any, run_id: str) -> pd.DataFrame:
    return wh.query(
        """SELECT d.epoch, d.action, coalesce(s.name, json_extract_string(d.detail, '$.name')) AS name, d.reason,
                  d.sop_id
           FROM sop_decisions d LEFT JOIN sops s USING (sop_id)
           WHERE d.run_id = ? AND d.action <> 'kept' ORDER BY d.epoch, d.action, name""",
        [run_id],
    )


def reviews_frame(wh: Any, run_id: str, sop_id: str | None = None) -> pd.DataFrame:
    where, params = ("AND r.sop_id = ?", [run_id, sop_id]) if sop_id else ("", [run_id])
    return wh.query(
        f"""SELECT r.epoch, s.name, r.task_id, r.episode_id, r.seq, r.labels, r.justification, r.engine
            FROM sop_reviews r JOIN sops s USING (sop_id) WHERE r.run_id = ? {where}
            ORDER BY r.epoch, s.name, r.task_id, r.seq""",
        params,
    )


def final_toolset(wh: Any, run_id: str) -> tuple[int, Toolset]:
    """The selected epoch and its evaluated toolset (what `sop export` writes)."""
    from core.sop.evolve import select_epoch

    state = load_state(wh, run_id)
    best = select_epoch(state.epochs)
    if best is None:
        return 0, Toolset()
    return best.epoch, state.toolset(best.evaluated)


def export_toolset(toolset: Toolset, fmt: str = "openai") -> dict[str, Any]:
    """Schemas as OpenAI or MCP tool definitions, plus each SOP's code and the atomic tools it calls."""
    if fmt not in ("openai", "mcp"):
        raise ValueError(f"unknown export format {fmt!r}; use openai or mcp")
    render = render_openai if fmt == "openai" else render_mcp
    return {
        "toolset_id": toolset.toolset_id,
        "format": fmt,
        "tools": [render(s.doc) for s in toolset],
        "sops": [
            {
                "name": s.name,
                "tool": s.tool,
                "uses": list(s.uses),
                "origin": s.origin,
                "sop_id": s.sop_id,
                "code": s.code,
            }
            for s in toolset
        ],
        "runtime": "Run each SOP's code only in core.sop.worker (limits, no network); its `tools.call` "
        "must reach the atomic tools of the same benchmark.",
    }


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    vals = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not vals:
        return float("nan"), float("nan")
    m = sum(vals) / len(vals)
    if len(vals) < 2:
        return m, float("nan")
    var = sum((v - m) ** 2 for v in vals) / (len(vals) - 1)
    return m, math.sqrt(var / len(vals))


def _pm(m: float, se: float) -> str:
    if math.isnan(m):
        return "–"
    return f"{100 * m:.1f}" + ("" if math.isnan(se) else f" ± {100 * se:.1f}")


def uptake_frame(wh: Any, run_id: str, top: int = 3) -> pd.DataFrame:
    """Per evaluation with SOPs offered: episodes, how many called an SOP, and what the agent called
    in the others (its own calls, not an SOP's inner ones; the `top` most frequent tools).

    Why: a toolset whose SOPs are never invoked cannot change the score, and
    the table says so from the traces, with what the agent did instead.
    """
    df = wh.query(
        """WITH ev AS (
             SELECT r.run_id, r.kind, json_extract(r.config, '$.epoch')::INT AS epoch, re.episode_id
             FROM runs r JOIN run_episodes re USING (run_id)
             WHERE r.parent_run = ? AND r.kind IN ('sop-eval', 'sop-test')
               AND json_extract_string(r.config, '$.benchmark') LIKE '%+sop:%'),
           calls AS (
             SELECT v.episode_id, v.tool FROM events v
             WHERE v.kind = 'tool_call' AND v.episode_id IN (SELECT episode_id FROM ev)
               AND json_extract(v.payload, '$.parent_seq') IS NULL)
           SELECT ev.kind, ev.epoch, ev.episode_id,
                  coalesce(bool_or(c.tool LIKE 'sop.%'), false) AS sop_called,
                  list(c.tool) FILTER (WHERE c.tool IS NOT NULL) AS tools
           FROM ev LEFT JOIN calls c USING (episode_id)
           GROUP BY ALL""",
        [run_id],
    )
    if df.empty:
        return pd.DataFrame()
    df["tools"] = df["tools"].map(
        lambda v: [str(t) for t in v] if isinstance(v, list | tuple) or hasattr(v, "tolist") else []
    )
    rows = []
    for (kind, epoch), g in df.groupby(["kind", "epoch"], dropna=False, sort=True):
        others = g[~g["sop_called"]]
        tally: dict[str, int] = {}
        for tools in others["tools"]:
            for t in tools:
                tally[t] = tally.get(t, 0) + 1
        instead = sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
        no_call = int(sum(1 for t in others["tools"] if not t))
        rows.append(
            {
                "evaluation": "test" if kind == "sop-test" else f"epoch {int(epoch)}",
                "episodes": len(g),
                "with an SOP call": int(g["sop_called"].sum()),
                "the agent's calls in the others": ", ".join(f"{t} ×{n}" for t, n in instead)
                + (f"; no call ×{no_call}" if no_call else ""),
            }
        )
    return pd.DataFrame(rows)  # grouped by (kind, epoch): the epochs in order, then the test


def table1(wh: Any) -> pd.DataFrame:
    """Table 1 / Fig. 3: per benchmark, domains, agent model and protocol (task caps, epochs), each
    method's mean ± s.e. over seeds.

    The atomic row (ReAct with the atomic tools) comes from the same runs'
    epoch 0 and atomic test evaluation: same tasks, same seeds. Runs of another
    protocol (a pilot on fewer tasks) are a group of their own, never averaged in.
    """
    df = runs(wh)
    df = df[df["status"] == "finished"] if not df.empty else df
    if df.empty:
        return pd.DataFrame()
    order = {"atomic": 0, "asi": 1, "no-merge": 2, "no-review": 3, "full": 4}
    rows = []
    keys = ["benchmark", "domains", "model", "train_cap", "test_cap", "n_epochs"]
    for (bench, domains, model, train_cap, _test_cap, n_epochs), g in df.groupby(keys, dropna=False):
        atomic = g.drop_duplicates("seed")
        entries = [("atomic", atomic["base_train_ts"], atomic["base_test_ts"], atomic, None)]
        entries += [(v, gv["train_ts"], gv["test_ts"], gv, gv["n_sops"]) for v, gv in g.groupby("method")]
        for variant, train, test, part, sops in entries:
            rows.append(
                {
                    "benchmark": bench,
                    "domains": domains,
                    "model": model,
                    "protocol": f"{train_cap} training tasks, {n_epochs} epochs",
                    "method": variant,
                    "seeds": int(part["seed"].nunique()),
                    "train TS %": _pm(*_mean_se(list(train))),
                    "test TS %": _pm(*_mean_se(list(test))),
                    "test tasks": int(pd.to_numeric(part["n_test"], errors="coerce").fillna(0).max()),
                    "SOPs": "–" if sops is None else f"{sops.mean():.1f}",
                    "_order": order.get(str(variant).split(" ")[0], 9),
                }
            )
    out = pd.DataFrame(rows).sort_values(["benchmark", "domains", "model", "protocol", "_order", "method"])
    return out.drop(columns="_order").reset_index(drop=True)


def results_section(wh: Any) -> str | None:
    """docs/RESULTS.md: Table 1 over stored runs, then each latest run's epoch curve and final toolset."""
    t1 = table1(wh)
    if t1.empty:
        return None
    parts = [
        "EvoSOP (`docschisel sop evolve` / `sop compare`): SOPs built from the training (optimization-split) "
        "trajectories, evaluated with the atomic tools on the training tasks each epoch; the final toolset is "
        "the epoch with the best training TS; test TS on the held-out test split, beside ReAct with the atomic "
        "tools on the same tasks and seeds (mean ± standard error over seeds).",
        markdown_table(t1),
    ]
    finished = runs(wh)
    finished = finished[finished["status"] == "finished"]
    for _, r in finished.drop_duplicates(["benchmark", "domains", "model", "method"]).head(6).iterrows():
        ep = epochs_frame(wh, r["run_id"])
        if ep.empty:
            continue
        view = ep[["epoch", "ts", "rounds", "sops", "added", "merged", "pruned", "sop_calls"]].copy()
        view["ts"] = (100 * view["ts"]).round(1)
        view["rounds"] = view["rounds"].round(2)
        parts += [
            f"*{r['method']} on {r['benchmark']} ({r['domains']}), {r['model']}, seed {r['seed']} "
            f"(run `{r['run_id']}`): training TS % and reasoning rounds per epoch (epoch 0 = atomic tools), "
            f"best epoch {r['best_epoch']}*",
            markdown_table(view.rename(columns={"ts": "TS %", "rounds": "rounds/episode", "sops": "SOPs"})),
        ]
        uptake = uptake_frame(wh, r["run_id"])
        if not uptake.empty:
            parts += [
                "Uptake: the evaluations with SOPs offered, how many episodes called one, and the agent's own "
                "calls in the episodes that did not",
                markdown_table(uptake),
            ]
        life = lifetimes_table(lifecycle_frame(wh, r["run_id"]))
        if not life.empty:
            parts += [
                "SOP lifetimes (Fig. 4): successful / all invocations per epoch, ✗ where pruned",
                markdown_table(life),
            ]
    return "\n\n".join(parts)


def lifetimes_table(life: pd.DataFrame) -> pd.DataFrame:
    """Fig. 4 as a table: one row per SOP, one column per epoch, `successes/invocations` (✗ where pruned)."""
    if life.empty:
        return pd.DataFrame()
    cell = life.assign(
        cell=[
            f"{s}/{n}" + (" ✗" if p else "")
            for s, n, p in zip(life["successes"], life["invocations"], life["pruned"], strict=True)
        ]
    )
    table = cell.pivot_table(
        index=["name", "origin"], columns="epoch", values="cell", aggfunc="first"
    ).fillna("")
    table.columns = [f"e{c}" for c in table.columns]
    return table.reset_index()
