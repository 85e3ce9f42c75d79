"""A small synthetic warehouse that exercises every page of the dashboard.

Real data arrives from the importer, the runner, the optimizer and the studies;
this module writes rows of the same shapes through the same write API so the
dashboard can be tested (AppTest, the browser test) and demonstrated before any
of that has run. Benchmarks are named `*-sample` so synthetic rows can never be
mistaken for measurements.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from core.docs import DocSet, Param, ToolDoc
from core.docs.tokens import token_length
from core.fields import CODES
from core.warehouse import Episode, Event, Warehouse, content_hash

BENCH = "workbench-sample"
BENCH2 = "api-bank-sample"
MODEL = "local/smollm2-135m"
T0 = datetime(2026, 3, 2, 9, 0, 0)


@dataclass(frozen=True)
class _ToolSpec:
    tool: str
    domain: str
    description: str
    params: tuple[tuple[str, str, str], ...]  # name, type, description
    queries: tuple[tuple[str, dict[str, Any]], ...]  # query template, gold args


TOOLS: tuple[_ToolSpec, ...] = (
    _ToolSpec(
        "email.send_email",
        "email",
        "Sends an email to a recipient.",
        (("recipient", "str", "Email address of the recipient"), ("subject", "str", ""), ("body", "str", "")),
        (
            ("Send {who} an email saying the {what} is ready", {"subject": "{what} ready", "body": "Hi"}),
            ("Email {who} about the {what} review", {"subject": "{what} review", "body": "See you"}),
        ),
    ),
    _ToolSpec(
        "email.delete_email",
        "email",
        "Deletes an email by id.",
        (("email_id", "str", "Eight-digit id of the email"),),
        (("Delete the last email from {who} about {what}", {}),),
    ),
    _ToolSpec(
        "calendar.create_event",
        "calendar",
        "Creates a calendar event.",
        (
            ("event_name", "str", "Title of the event"),
            ("participant_email", "str", ""),
            ("event_start", "str", "Start time"),
            ("duration", "str", "Minutes"),
        ),
        (("Book a 30 minute {what} sync with {who} tomorrow at 10", {"event_name": "{what} sync"}),),
    ),
    _ToolSpec(
        "analytics.create_plot",
        "analytics",
        "Plots a metric over a time range.",
        (
            ("time_min", "str", "First day"),
            ("time_max", "str", "Last day"),
            ("value_to_plot", "str", ""),
            ("plot_type", "str", "bar, line, scatter or histogram"),
        ),
        (("Make a line chart of {what} visits since November 21", {"plot_type": "line"}),),
    ),
    _ToolSpec(
        "QueryStock",
        "finance",
        "Query the stock price of a given stock code and date.",
        (("stock_code", "str", "The stock code"), ("date", "str", "The date, yyyy-MM-dd")),
        (("What was the {what} stock price on 2022-03-04?", {"date": "2022-03-04"}),),
    ),
    _ToolSpec(
        "QueryHealthData",
        "health",
        "Query the health data of a user in a time span.",
        (("user_id", "str", ""), ("start_time", "str", ""), ("end_time", "str", "")),
        (("Show health data of user {who} for the first week of March", {"start_time": "2023-03-01"}),),
    ),
)

PEOPLE = ("carlos", "nadia", "luis", "amara", "kenji", "sofia")
THINGS = ("budget", "roadmap", "launch", "invoice", "hiring", "security")
METHODS = {"original": 0.34, "easytool": 0.41, "draft": 0.46, "docschisel": 0.63}


def _bench_of(spec: _ToolSpec) -> str:
    return BENCH2 if spec.domain in ("finance", "health") else BENCH


def _original_doc(spec: _ToolSpec) -> ToolDoc:
    params = tuple(
        Param(name=n, type=t, description=d or None, required=True if i == 0 else None)
        for i, (n, t, d) in enumerate(spec.params)
    )
    return ToolDoc(tool=spec.tool, name=spec.tool, description=spec.description, parameters=params)


def _improved(doc: ToolDoc, spec: _ToolSpec, strength: int) -> ToolDoc:
    """A candidate doc: the kind of operations the optimizer plans (Add UE, Refine IPD, Add IC...)."""
    first = spec.params[0][0]
    new = doc.add("UE", [f"{spec.tool}({first}='example')"])
    if strength >= 2:
        new = new.refine("FD", f"{spec.description} Use it when the user asks to {spec.domain}.")
        new = new.add("IPD", {n: f"The {n.replace('_', ' ')} to use" for n, _, d in spec.params if not d})
    if strength >= 3:
        new = new.add("IC", "Dates must be ISO 8601 (YYYY-MM-DD); ids are eight digits.")
        new = new.add("RPN", ["result"]).add("RPT", ["str"])
    return new


def _value(name: str, who: str, what: str, k: int) -> str:
    """A plausible argument value for a parameter name."""
    if "email" in name or name == "recipient":
        return f"{who}@atlas.example"
    if name in ("time_min", "start_time", "date"):
        return f"2023-11-{10 + k:02d}"
    if name in ("time_max", "end_time"):
        return f"2023-11-{20 + k:02d}"
    if name == "event_start":
        return f"2023-11-{10 + k:02d} 10:00:00"
    if name == "duration":
        return "30"
    if name.endswith("_id"):
        return f"{10000042 + 97 * k:08d}"
    if name == "value_to_plot":
        return ("total_visits", "session_duration_seconds", "user_engaged")[k % 3]
    if name == "plot_type":
        return ("bar", "line", "scatter")[k % 3]
    if name == "stock_code":
        return ("AAPL", "MSFT", "NVDA", "TSLA")[k % 4]
    if name == "subject":
        return f"{what.title()} update"
    if name == "body":
        return f"Hi {who.title()}, the {what} is ready for review."
    return f"{what} {k}"


def _task_rows(rng: random.Random) -> list[dict[str, Any]]:
    tasks = []
    for spec in TOOLS:
        for k in range(8):
            template, extra = spec.queries[k % len(spec.queries)]
            who, what = PEOPLE[(k + len(spec.tool)) % 6], THINGS[k % 6]
            args = {n: _value(n, who, what, k) for n, _, _ in spec.params}
            args.update({a: v.format(who=who, what=what) for a, v in extra.items()})
            tasks.append(
                {
                    "benchmark": _bench_of(spec),
                    "task_id": f"{spec.domain}-{k:03d}-{spec.tool.split('.')[-1]}",
                    "domain": spec.domain,
                    "query": template.format(who=who.title(), what=what),
                    "gold": [{"tool": spec.tool, "args": args}],
                    "tools": [spec.tool],
                    "part": ("opt", "opt", "opt", "val", "test", "test", "test", "opt")[k],
                }
            )
    return tasks


def _corrupt(value: str) -> str:
    """The kind of wrong value agents produce: a name for an address, a US date, a wrong case."""
    if "@" in value:
        return value.split("@")[0].title()
    if len(value) >= 10 and value[4] == "-" and value[7] == "-":
        return f"{value[5:7]}/{value[8:10]}/{value[:4]}" + value[10:]
    return value.upper() if value.lower() == value else value.lower()


def _events(task: dict[str, Any], ok: bool, rng: random.Random, start: datetime) -> tuple[list[Event], dict]:
    """Events and episode outcome fields for one synthetic attempt."""
    gold = task["gold"][0]
    ts = start
    evs: list[Event] = []

    def add(kind: str, **kw: Any) -> None:
        nonlocal ts
        ts += timedelta(seconds=rng.uniform(0.2, 1.5))
        evs.append(Event(len(evs), kind, ts=ts, **kw))

    add("model_call", tokens_in=rng.randint(300, 900), tokens_out=rng.randint(20, 80), latency_s=0.9)
    add("thought", text=f"I need to call {gold['tool']} for: {task['query']}")
    out = {"calls": [], "error": None, "error_class": None, "final": None}
    mode = "ok" if ok else rng.choice(["wrong_value", "missing_arg", "tool_error", "wrong_tool", "no_action"])
    args = dict(gold["args"])
    if mode == "wrong_value":
        key = next(iter(args))
        args[key] = _corrupt(str(args[key]))
    elif mode == "missing_arg":
        args.pop(list(args)[-1])
    if mode == "wrong_tool":
        other = next(s.tool for s in TOOLS if s.domain != task["domain"])
        add("tool_call", tool=other, args=args, error=f"Error: unknown tool {other!r}")
    elif mode == "tool_error":
        add("tool_call", tool=gold["tool"], args=args, error="ValueError: date must be YYYY-MM-DD")
        out["calls"].append({"tool": gold["tool"], "args": args})
        out["error_class"] = "tool_exception"
    elif mode != "no_action":
        add("tool_call", tool=gold["tool"], args=args, output=json.dumps({"status": "ok", "id": "00000042"}))
        out["calls"].append({"tool": gold["tool"], "args": args})
    add("model_call", tokens_in=rng.randint(400, 1100), tokens_out=rng.randint(10, 60), latency_s=0.7)
    if mode == "no_action":
        out["error"], out["error_class"] = "the agent stopped without acting", "no_action"
        add("error", error=out["error"], text="no_action")
    else:
        out["final"] = "Done." if ok else "I have completed the request."
        add("final_answer", text=out["final"])
    out["mode"] = mode
    return evs, out


class _Batch:
    """Rows collected per table and written in a handful of transactions (the seed must be quick)."""

    def __init__(self, wh: Warehouse) -> None:
        self.wh = wh
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.pairs: list[tuple[Episode, list[Event]]] = []

    def add(self, table: str, *rows: dict[str, Any]) -> None:
        self.rows.setdefault(table, []).extend(rows)

    def run(self, kind: str, config: dict[str, Any], name: str, bench: str, minutes: float = 5.0) -> str:
        rid = content_hash("run", kind, config)
        self.add(
            "runs",
            {
                "run_id": rid,
                "kind": kind,
                "name": name,
                "benchmark": bench,
                "config": json.dumps(config),
                "versions": "{}",
                "git_rev": None,
                "parent_run": None,
                "created_at": T0,
            },
        )
        self.add(
            "run_status",
            {"run_id": rid, "status": "started", "detail": "{}", "ts": T0},
            {"run_id": rid, "status": "finished", "detail": "{}", "ts": T0 + timedelta(minutes=minutes)},
        )
        return rid

    def flush(self) -> None:
        self.wh.record_episodes(self.pairs)
        self.wh.insert_many(self.rows)


def seed_sample(warehouse: Warehouse, seed: int = 0) -> dict[str, Any]:
    """Fill `warehouse` with a coherent synthetic study; returns ids the tests use."""
    rng = random.Random(seed)
    b = _Batch(warehouse)
    b.add(
        "benchmarks", *({"name": n, "info": '{"synthetic": true}', "created_at": T0} for n in (BENCH, BENCH2))
    )
    tasks = _task_rows(rng)
    b.add(
        "tasks",
        *(
            {**{k: v for k, v in t.items() if k != "part"}, "gold": json.dumps(t["gold"]), "meta": "{}"}
            for t in tasks
        ),
    )
    split_id = content_hash("split", BENCH, seed)
    b.add(
        "splits",
        {"split_id": split_id, "benchmark": BENCH, "seed": seed, "ratios": "[5,1,4]", "created_at": T0},
    )
    b.add(
        "split_assignments",
        *({"split_id": split_id, "task_id": t["task_id"], "part": t["part"]} for t in tasks),
    )
    b.add(
        "tools",
        *(
            {
                "benchmark": _bench_of(s),
                "tool": s.tool,
                "domain": s.domain,
                "original_doc_id": _original_doc(s).doc_id,
            }
            for s in TOOLS
        ),
    )
    ids: dict[str, Any] = {"split_id": split_id}
    ids.update(_optimize(b, rng, tasks))
    docsets: dict[tuple[str, str], str] = {}
    for bench in (BENCH, BENCH2):
        specs = [s for s in TOOLS if _bench_of(s) == bench]
        for i, method in enumerate(METHODS):
            docs = [_original_doc(s) if i == 0 else _improved(_original_doc(s), s, i) for s in specs]
            parents = {s.tool: _original_doc(s).doc_id for s in specs} if i else None
            producer = None
            if method == "docschisel" and bench == BENCH:
                producer = ids["optimize_run"]
            elif i:
                producer = b.run(
                    "baseline",
                    {"method": method, "benchmark": bench},
                    f"{method} on {bench}",
                    bench,
                    minutes=2.0 * i,
                )
                b.add(
                    "llm_calls",
                    *(
                        {
                            "call_id": content_hash("call", producer, k),
                            "run_id": producer,
                            "purpose": method,
                            "model": MODEL,
                            "tokens_in": 500 * i,
                            "tokens_out": 90,
                            "cost": 0.0,
                            "latency_s": 1.0,
                            "cache_hit": False,
                            "ts": T0,
                        }
                        for k in range(len(specs))
                    ),
                )
            docsets[(bench, method)] = warehouse.register_docset(
                DocSet(docs, name=f"{method} docs"),
                benchmark=bench,
                origin=method,
                parents=parents,
                meta=_producer_meta(producer, method, specs, i),
            )
    ids["docsets"] = docsets
    ids["eval_runs"] = _eval_runs(b, rng, tasks, docsets)
    _field_impact(b, rng, docsets)
    ids["approved_doc"] = _review(b)
    b.add(
        "job_events",
        *(
            {
                "job_id": "sample-job",
                "status": s,
                "done": d,
                "total": 10,
                "message": m,
                "ts": T0 + timedelta(seconds=i),
            }
            for i, (s, d, m) in enumerate(
                [("queued", None, "queued"), ("running", 10, "step 10"), ("done", 10, "finished")]
            )
        ),
    )
    b.add(
        "jobs",
        {
            "job_id": "sample-job",
            "kind": "eval",
            "created_at": T0,
            "pid": None,
            "params": json.dumps({"argv": ["eval", "--benchmark", BENCH], "benchmark": BENCH}),
        },
    )
    b.flush()
    return ids


def _eval_runs(b: _Batch, rng: random.Random, tasks: list[dict], docsets: dict) -> list[str]:
    run_ids = []
    for (bench, method), docset_id in docsets.items():
        for opt_seed in range(3) if bench == BENCH else range(1):
            config = {
                "benchmark": bench,
                "docs": docset_id,
                "split": "test",
                "model": MODEL,
                "opt_seed": opt_seed,
            }
            rid = b.run("eval", config, f"{method} seed {opt_seed} on test", bench)
            run_ids.append(rid)
            pairs = []
            for repeat in range(3):
                for t in tasks:
                    if t["benchmark"] != bench or t["part"] != "test":
                        continue
                    ok = rng.random() < METHODS[method] + (0.1 if t["domain"] == "email" else 0.0)
                    pairs.append(_episode(rid, bench, t, docset_id, repeat, ok, rng, "test", MODEL))
            b.pairs.extend(pairs)
            b.add(
                "evaluations",
                {
                    "eval_id": content_hash("eval", rid),
                    "run_id": rid,
                    "docset_id": docset_id,
                    "split": "test",
                    "scope": "overall",
                    "key": "all",
                    "n": len(pairs),
                    "ts_mean": sum(e.success for e, _ in pairs) / len(pairs),
                    "tc_mean": sum(e.tool_correct for e, _ in pairs) / len(pairs),
                    "detail": "{}",
                    "created_at": T0,
                },
            )
    # recorded traces of two hosted models (what the importer brings)
    rid = b.run("import", {"benchmark": BENCH, "recorded": True}, "recorded gpt-4 / claude-2", BENCH)
    b.pairs.extend(
        _episode(
            rid, BENCH, t, docsets[(BENCH, "original")], 0, rng.random() < p, rng, "", m, source="import"
        )
        for m, p in (("gpt-4-0125-preview", 0.55), ("claude-2", 0.38))
        for t in tasks
        if t["benchmark"] == BENCH
    )
    return run_ids


def _episode(rid, bench, t, docset_id, repeat, ok, rng, split, model, source="run"):  # noqa: ANN001, ANN202
    start = T0 + timedelta(minutes=rng.randint(0, 600))
    evs, out = _events(t, ok, rng, start)
    cid = content_hash("cfg", model)
    return (
        Episode(
            episode_id=Episode.make_id(bench, t["task_id"], docset_id, cid + rid, repeat),
            run_id=rid,
            benchmark=bench,
            task_id=t["task_id"],
            domain=t["domain"],
            docset_id=docset_id,
            config_id=cid,
            repeat=repeat,
            model=model,
            paradigm="react/native",
            split=split,
            success=ok,
            tool_correct=ok or out["mode"] in ("wrong_value", "missing_arg", "tool_error"),
            score={"correct": ok, "mode": out["mode"]},
            calls=out["calls"],
            final_answer=out["final"],
            error=out["error"],
            error_class=out["error_class"],
            n_steps=2,
            tokens_in=sum(e.tokens_in for e in evs),
            tokens_out=sum(e.tokens_out for e in evs),
            cost=0.0,
            latency_s=(evs[-1].ts - start).total_seconds(),
            source=source,
            started_at=start,
            finished_at=evs[-1].ts,
        ),
        evs,
    )


RULES = {
    "wrong_value": ("wrong-valued argument", ["IPD", "UE"], "Refine"),
    "missing_arg": ("missing argument", ["PRF", "IPN"], "Add"),
    "tool_error": ("tool error message", ["IC", "IPT"], "Add"),
    "wrong_tool": ("unknown tool", ["TN", "FD"], "Refine"),
    "no_action": ("no action", ["FD", "UG"], "Add"),
}


def _producer_meta(producer: str | None, method: str, specs: list, i: int) -> dict[str, Any]:
    """What a producer records on its doc set: the run, and for a baseline its own per-tool costs."""
    if not producer:
        return {}
    if method == "docschisel":
        return {"run_id": producer}
    costs = {s.tool: {"calls": 1, "tokens": 500 * i + 90, "seconds": 120.0 * i / len(specs)} for s in specs}
    return {"run_id": producer, "costs": costs}


def _optimize(b: _Batch, rng: random.Random, tasks: list[dict]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    candidates: list[ToolDoc] = []
    parents: dict[str, str] = {}
    for memory in (True, False):
        config = {"benchmark": BENCH, "model": MODEL, "iterations": 3, "memory": memory, "engine": "evidence"}
        rid = b.run("optimize", config, f"DocsChisel {'with' if memory else 'without'} memory", BENCH, 38.0)
        out["optimize_run" if memory else "nomem_run"] = rid
        profile = [t for t in tasks if t["benchmark"] == BENCH and t["part"] == "opt"]
        pairs = [
            _episode(rid, BENCH, t, "profile", 0, rng.random() < 0.3, rng, "opt", MODEL) for t in profile
        ]
        b.pairs.extend(pairs)
        failed = [(e, t) for (e, _), t in zip(pairs, profile, strict=True) if not e.success]
        for spec in [s for s in TOOLS if _bench_of(s) == BENCH]:
            orig = _original_doc(spec)
            parents[spec.tool] = orig.doc_id
            base = round(rng.uniform(0.2, 0.4), 3)
            best = base
            for it in (1, 2, 3):
                for ep, t in failed:
                    if spec.tool not in t["tools"]:
                        continue
                    mode = ep.score["mode"]
                    cls, fields, _ = RULES[mode]
                    b.add(
                        "diagnoses",
                        {
                            "diagnosis_id": content_hash("diag", rid, ep.episode_id, it),
                            "run_id": rid,
                            "tool": spec.tool,
                            "iteration": it,
                            "episode_id": ep.episode_id,
                            "doc_id": orig.doc_id,
                            "engine": "evidence",
                            "failure_class": cls,
                            "doc_related": mode != "no_action",
                            "evidence": f"called {spec.tool} with "
                            + (json.dumps(ep.calls[0]["args"]) if ep.calls else "no call"),
                            "mismatch": f"{cls}: expected {json.dumps(t['gold'][0]['args'])}",
                            "fields": fields,
                            "detail": "{}",
                            "created_at": T0,
                        },
                    )
                ops = [
                    {
                        "op": RULES[m][2],
                        "field": RULES[m][1][0],
                        "reason": f"{RULES[m][0]} in {n} trace(s)",
                        "support": n,
                    }
                    for m, n in (("wrong_value", 1 + it), ("tool_error", it))
                ]
                plan_id = content_hash("plan", rid, spec.tool, it)
                b.add(
                    "plans",
                    {
                        "plan_id": plan_id,
                        "run_id": rid,
                        "tool": spec.tool,
                        "iteration": it,
                        "scope": "merged",
                        "operations": json.dumps(ops),
                        "created_at": T0,
                    },
                )
                cand = _improved(orig, spec, it)
                candidates.append(cand)
                val = round(min(1.0, base + (0.12 if memory else 0.05) * it - rng.uniform(0, 0.08)), 3)
                accepted = val >= base
                best = max(best, val) if accepted else best
                regress = [t["task_id"] for t in tasks if spec.tool in t["tools"]][: (0 if accepted else 2)]
                b.add(
                    "candidates",
                    {
                        "candidate_id": content_hash("cand", rid, spec.tool, it),
                        "run_id": rid,
                        "tool": spec.tool,
                        "iteration": it,
                        "doc_id": cand.doc_id,
                        "parent_doc_id": orig.doc_id,
                        "plan_id": plan_id,
                        "val_ts": val,
                        "base_val_ts": base,
                        "opt_ts": round(val * 0.9, 3),
                        "accepted": accepted,
                        "regressions": json.dumps(regress),
                        "new_failures": "[]",
                        "tokens": 40 + 25 * it,
                        "created_at": T0 + timedelta(minutes=it),
                    },
                )
                if memory:
                    for kind, items in (
                        (
                            "diagnosis",
                            [f"{RULES[m][0]} -> {', '.join(RULES[m][1])}" for m in list(RULES)[: it + 1]],
                        ),
                        ("planning", [f"{o['op']} {o['field']} helped" for o in ops][:it]),
                        ("generation", [f"iteration {i}: keep examples short" for i in range(1, it + 1)]),
                    ):
                        b.add(
                            "memories",
                            {
                                "memory_id": content_hash("mem", rid, spec.domain, kind, it, spec.tool),
                                "run_id": rid,
                                "domain": spec.domain,
                                "kind": kind,
                                "tool": spec.tool,
                                "iteration": it,
                                "content": json.dumps(items),
                                "created_at": T0,
                            },
                        )
            sel = _improved(orig, spec, 3) if best > base else orig
            b.add(
                "selections",
                {
                    "run_id": rid,
                    "tool": spec.tool,
                    "doc_id": sel.doc_id,
                    "created_at": T0,
                    "reason": "highest validation TS" if best > base else "nothing accepted",
                },
            )
            b.add(
                "chisel_tools",
                {
                    "run_id": rid,
                    "tool": spec.tool,
                    "domain": spec.domain,
                    "n_opt": len(profile),
                    "n_val": 4,
                    "base_val_ts": base,
                    "base_opt_ts": base,
                    "best_val_ts": best,
                    "original_doc_id": orig.doc_id,
                    "selected_doc_id": sel.doc_id,
                    "iterations": 3,
                    "accepted": 3,
                    "minutes": round(rng.uniform(9.0, 15.0), 2),
                    "optimizer_tokens": 4_000 + rng.randrange(1_000),
                    "agent_tokens": 30_000 + rng.randrange(10_000),
                    "doc_tokens_before": token_length(orig),
                    "doc_tokens_after": token_length(sel),
                    "detail": "{}",
                    "created_at": T0,
                },
            )
            b.add(
                "llm_calls",
                *(
                    {
                        "call_id": content_hash("call", rid, spec.tool, i),
                        "run_id": rid,
                        "purpose": "diagnose",
                        "model": MODEL,
                        "tokens_in": 900,
                        "tokens_out": 150,
                        "cost": 0.0,
                        "latency_s": 1.1,
                        "cache_hit": False,
                        "ts": T0,
                    }
                    for i in range(4)
                ),
            )
    b.wh.register_docs(list({d.doc_id: d for d in candidates}.values()), origin="candidate", parents=parents)
    return out


def _field_impact(b: _Batch, rng: random.Random, docsets: dict) -> None:
    present = {"TN", "FD", "IPN", "IPT", "PRF", "IPD"}
    for bench, domain in ((BENCH, "email"), (BENCH, "calendar"), (BENCH2, "finance")):
        rid = b.run("study", {"benchmark": bench, "domain": domain}, f"field study {domain}", bench)
        for model in (MODEL, "gpt-4o-mini"):
            for paradigm in ("react", "multi"):
                base = rng.uniform(0.2, 0.6)
                for code in CODES:
                    op = "remove" if code in present else "add"
                    delta = rng.gauss(-6 if op == "remove" else 3, 4)
                    half = rng.uniform(1, 5)
                    b.add(
                        "field_impact",
                        {
                            "study_id": content_hash("study", bench, domain),
                            "benchmark": bench,
                            "domain": domain,
                            "model": model,
                            "paradigm": paradigm,
                            "field": code,
                            "operation": op,
                            "n_tools": 3,
                            "base_ts": base,
                            "variant_ts": base + delta / 100,
                            "delta_pp": delta,
                            "ci_low": delta - half,
                            "ci_high": delta + half,
                            "repeats": 3,
                            "docset_id": docsets[(bench, "original")],
                            "run_id": rid,
                            "created_at": T0,
                        },
                    )


def _review(b: _Batch) -> str:
    spec = TOOLS[0]
    cand = _improved(_original_doc(spec), spec, 2)
    b.add(
        "approvals",
        {
            "approval_id": "sample-approval",
            "doc_id": cand.doc_id,
            "tool": spec.tool,
            "action": "label",
            "label": "needs-second-look",
            "reviewer": "nadia",
            "reason": "examples look synthetic",
            "run_id": None,
            "created_at": T0,
        },
    )
    return cand.doc_id


__all__ = ["BENCH", "BENCH2", "MODEL", "seed_sample", "seeded_copy"]


_TEMPLATES: dict[int, tuple[str, dict[str, Any]]] = {}


def seeded_copy(dest: str | Path, seed: int = 0) -> dict[str, Any]:
    """Copy a sample warehouse to `dest` (seeded once per process, then copied: tests stay fast)."""
    import shutil
    import tempfile

    from core.warehouse.store import close_all

    if seed not in _TEMPLATES:
        folder = Path(tempfile.mkdtemp(prefix="docschisel-sample-"))
        path = folder / "sample.duckdb"
        ids = seed_sample(Warehouse(path), seed)
        close_all()
        _TEMPLATES[seed] = (str(path), ids)
    src, ids = _TEMPLATES[seed]
    close_all()
    shutil.copyfile(src, dest)
    return ids
