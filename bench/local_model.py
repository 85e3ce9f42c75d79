"""Measure the offline backbones: assembly, load, RSS, tokens per CPU-second, prefix reuse, tool accuracy.

    python bench/local_model.py                       # every installed local model, all measurements
    python bench/local_model.py --models qwen2.5-coder-0.5b --apibank 30
    python bench/local_model.py --no-apibank          # speed and the 10 single-step requests only
    python bench/local_model.py --also-threads 2      # speed with both cores in one process as well

Each model is measured in its own process (so peak RSS is that model's), one
model at a time. Figures are printed and stored in the warehouse
(`bench_results`, default data/bench-local.duckdb) for `docschisel results`.

- assembly_s: concatenating and hashing the part packages into a fresh file
  (models shipped as parts only); load_s: llama.cpp loading the GGUF file.
- prompt / generation tokens per CPU-second and per wall-second, from a
  cold ~700-token prompt and a 64-token free generation, and generation
  under a tool grammar (the grammar is checked against the whole vocabulary
  at every token).
- s_per_call_cold / s_per_call_reuse: the same two interleaved four-step
  episodes (system prompt, tool docs, growing conversation), once with a fresh
  context for every call and once with the state cache; `reuse_speedup` is
  their ratio. Interleaving is what the runner's concurrent episodes do.
  The first of those calls builds the prefix every later one shares (system
  prompt and tool docs); a run builds it once per doc set and model process,
  so `s_per_call_reuse_steady` (the calls after it) is what each further step
  of each further task costs, and `reuse_speedup_steady` its ratio to cold.
  s_per_call_reuse_unforced: the state cache with every reply token sampled
  (DOCSCHISEL_LOCAL_FORCING=0); `forcing_speedup` is what jump-forward
  decoding of the text the grammar forces (core.llm.forcing) gains on top.
- single-step accuracy on the 10 requests below (right tool, right arguments),
  through the gateway exactly as agents call it.
- API-Bank level-1 accuracy: every in-scope call sample (usable and repaired)
  with the APIs upstream shows for it, run by the real ReAct agent through the
  runner with one step: right API = TC, right full call = TS; also on the
  samples usable as-is. Episodes are stored, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _tool(name: str, description: str, params: dict[str, tuple[str, str]], required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {k: {"type": t, "description": d} for k, (t, d) in params.items()},
                "required": required,
            },
        },
    }


TOOLS = [
    _tool(
        "get_weather",
        "Get the current weather for a city.",
        {"city": ("string", "Name of the city")},
        ["city"],
    ),
    _tool(
        "send_email",
        "Send an email to a recipient.",
        {
            "recipient": ("string", "Email address of the recipient"),
            "subject": ("string", "Subject line"),
            "body": ("string", "Text of the email"),
        },
        ["recipient", "subject", "body"],
    ),
    _tool(
        "create_event",
        "Create a calendar event.",
        {
            "title": ("string", "Title of the event"),
            "date": ("string", "Date as YYYY-MM-DD"),
            "duration_minutes": ("integer", "Length of the event in minutes"),
        },
        ["title", "date"],
    ),
    _tool(
        "convert_currency",
        "Convert an amount of money from one currency to another.",
        {
            "amount": ("number", "Amount to convert"),
            "from_currency": ("string", "Three-letter code of the source currency"),
            "to_currency": ("string", "Three-letter code of the target currency"),
        },
        ["amount", "from_currency", "to_currency"],
    ),
]

REQUESTS = [
    ("What's the weather like in Paris right now?", "get_weather", {"city": "Paris"}),
    ("Is it raining in Tokyo?", "get_weather", {"city": "Tokyo"}),
    (
        "Email bob@example.com with subject 'Lunch' and say 'See you at noon'.",
        "send_email",
        {"recipient": "bob@example.com", "subject": "Lunch"},
    ),
    (
        "Send an email to ann@corp.com, subject Report, body: the report is attached.",
        "send_email",
        {"recipient": "ann@corp.com", "subject": "Report"},
    ),
    (
        "Create an event called Team sync on 2024-05-02 lasting 30 minutes.",
        "create_event",
        {"title": "Team sync", "date": "2024-05-02"},
    ),
    (
        "Put 'Dentist' in my calendar for 2024-06-11.",
        "create_event",
        {"title": "Dentist", "date": "2024-06-11"},
    ),
    (
        "Convert 100 USD to EUR.",
        "convert_currency",
        {"amount": 100, "from_currency": "USD", "to_currency": "EUR"},
    ),
    (
        "How many yen is 50 GBP?",
        "convert_currency",
        {"amount": 50, "from_currency": "GBP", "to_currency": "JPY"},
    ),
    ("What's the temperature in Berlin?", "get_weather", {"city": "Berlin"}),
    (
        "Schedule Budget review on 2024-07-01.",
        "create_event",
        {"title": "Budget review", "date": "2024-07-01"},
    ),
]

# Two multi-step episodes for the prefix-reuse measurement: each step appends the model's
# call and a tool result, as an agent loop does.
EPISODES = [
    [
        "What's the weather in Oslo? Email it to ann@corp.com with subject Weather.",
        ("get_weather", {"city": "Oslo"}, "Light rain, 7 C, wind 20 km/h from the north-west."),
        (
            "send_email",
            {"recipient": "ann@corp.com", "subject": "Weather", "body": "Oslo: light rain, 7 C."},
            "Sent.",
        ),
        ("create_event", {"title": "Umbrella", "date": "2024-05-02"}, "Created event 17."),
    ],
    [
        "Convert 250 EUR to USD and put a 'Pay rent' event on 2024-06-01.",
        ("convert_currency", {"amount": 250, "from_currency": "EUR", "to_currency": "USD"}, "271.35 USD"),
        ("create_event", {"title": "Pay rent", "date": "2024-06-01"}, "Created event 18."),
        ("get_weather", {"city": "Rome"}, "Sunny, 24 C."),
    ],
]
SYSTEM = (
    "You are an assistant that completes the user's request with the tools. Think about which tool "
    "fits, fill every required argument from the request, and call one tool at a time. "
) * 6


def rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _norm(v: object) -> object:
    return v.strip().lower() if isinstance(v, str) else v


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def _episode_messages(ep: list, upto: int) -> list[dict]:
    msgs = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": ep[0]}]
    for i, (tool, args, result) in enumerate(ep[1 : 1 + upto]):
        cid = f"c{i}"
        call = {"id": cid, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}
        msgs += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": cid, "content": result},
        ]
    return msgs


def measure_one(name: str, args: argparse.Namespace) -> dict:
    """Every figure for one model, in this process."""
    from core.llm import complete, register_providers, weights
    from core.llm.grammar import tool_call_grammar
    from core.llm.local import LocalModelUnavailable, ensure_available, runtime

    spec = weights.spec(name)
    out: dict = {"model": f"local/{name}", "figures": {}}
    fig = out["figures"]
    try:
        if spec.parts and not args.skip_assembly:
            with tempfile.TemporaryDirectory(
                dir=weights.model_dir().parent if weights.model_dir().parent.exists() else None
            ) as tmp:
                _, wall, _ = _timed(lambda: weights.assemble_parts(spec, Path(tmp) / spec.filename))
                fig["assembly_s"] = (wall, {"bytes": spec.size})
        ensure_available(name)
    except LocalModelUnavailable as exc:
        out["error"] = str(exc)
        return out
    base = rss_mb()
    rt = runtime(name)
    fig["load_s"] = (rt.load_s, {"threads": rt.llm.n_threads, "n_ctx": rt.n_ctx})
    fig["rss_after_load_mb"] = (rss_mb(), {"before_load_mb": round(base)})
    out["identity"] = {
        k: rt.metadata.get(k) for k in ("general.name", "general.architecture", "general.size_label")
    }

    register_providers()
    if args.speed:
        # throughput: a cold ~700-token prompt, then free and grammar-constrained generation
        filler = "Tool documentation is read by agents that must choose and call tools correctly. " * 45
        prompt, n_prompt = rt.prompt(
            [{"role": "system", "content": filler}, {"role": "user", "content": "Write a story."}]
        )
        rt.llm.reset()
        rt.states.clear()
        r, wall, cpu = _timed(lambda: rt.generate(prompt, grammar=None, max_tokens=1))
        fig["prompt_tok_per_cpu_s"] = (
            n_prompt / cpu,
            {"tokens": n_prompt, "wall_tok_per_s": n_prompt / wall},
        )
        # generation after the held prompt (prefix reuse: a few new tokens, then 64 generated)
        r, wall, cpu = _timed(lambda: rt.generate(prompt + " Once", grammar=None, max_tokens=64))
        n = r["usage"]["completion_tokens"]
        fig["gen_tok_per_cpu_s"] = (n / cpu, {"tokens": n, "wall_tok_per_s": n / wall})
        grammar = tool_call_grammar(TOOLS, "required")
        r, wall, cpu = _timed(lambda: rt.generate(prompt + " ", grammar=grammar, max_tokens=64))
        n = r["usage"]["completion_tokens"]
        fig["gen_grammar_tok_per_cpu_s"] = (n / cpu, {"tokens": n, "wall_tok_per_s": n / wall})

        # prefix reuse: two interleaved four-step episodes, cold context vs state cache
        calls = [(ep, k) for k in range(4) for ep in EPISODES]
        # (and "reuse_unforced": the state cache without jump-forward decoding, core.llm.forcing)
        for mode in ("cold", "reuse_unforced", "reuse"):
            os.environ["DOCSCHISEL_LOCAL_FORCING"] = "0" if mode == "reuse_unforced" else "1"
            if mode == "cold":
                os.environ["DOCSCHISEL_LOCAL_FRESH_CONTEXT"] = "1"
            else:
                os.environ.pop("DOCSCHISEL_LOCAL_FRESH_CONTEXT", None)
                rt.states.clear()
                rt.llm.reset()
            walls, cpus = [], []
            for ep, k in calls:
                _, wall, cpu = _timed(
                    lambda ep=ep, k=k: complete(
                        f"local/{name}", _episode_messages(ep, k), tools=TOOLS, cache=False, purpose="bench"
                    )
                )
                walls.append(wall)
                cpus.append(cpu)
            fig[f"s_per_call_{mode}"] = (
                sum(walls) / len(walls),
                {"calls": len(walls), "cpu_s_per_call": sum(cpus) / len(cpus)},
            )
            if mode != "cold":
                # the first call evaluates the system prompt and tool docs every later call shares;
                # in a run that prefix is built once per doc set and model process, so the calls
                # after it are what each further step of each further task costs
                fig[f"s_per_call_{mode}_steady"] = (
                    sum(walls[1:]) / len(walls[1:]),
                    {
                        "calls": len(walls) - 1,
                        "cpu_s_per_call": sum(cpus[1:]) / len(cpus[1:]),
                        "prefix_build_s": walls[0],
                    },
                )
        os.environ.pop("DOCSCHISEL_LOCAL_FORCING", None)
        fig["reuse_speedup"] = (fig["s_per_call_cold"][0] / fig["s_per_call_reuse"][0], {})
        fig["forcing_speedup"] = (fig["s_per_call_reuse_unforced"][0] / fig["s_per_call_reuse"][0], {})
        fig["reuse_speedup_steady"] = (fig["s_per_call_cold"][0] / fig["s_per_call_reuse_steady"][0], {})

    # the 10 single-step requests
    right_tool = right_args = 0
    walls = []
    for query, tool, expected in REQUESTS:
        r, wall, _ = _timed(
            lambda q=query: complete(
                f"local/{name}", [{"role": "user", "content": q}], tools=TOOLS, cache=False
            )
        )
        walls.append(wall)
        call = r.tool_calls[0] if r.tool_calls else None
        ok_tool = bool(call and call.name == tool)
        right_tool += ok_tool
        right_args += ok_tool and all(_norm(call.arguments.get(k)) == _norm(v) for k, v in expected.items())
    fig["single_step_right_tool"] = (right_tool / len(REQUESTS), {"n": len(REQUESTS)})
    fig["single_step_right_call"] = (
        right_args / len(REQUESTS),
        {"n": len(REQUESTS), "s_per_call": sum(walls) / len(walls)},
    )

    if args.apibank != 0:
        fig.update(apibank_accuracy(name, args))
    if args.style_probe and spec.style == "json" and spec.name != "smollm2-135m":
        fig.update(style_probe(name, args))
    fig["peak_rss_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, {})
    fig["state_cache_mb"] = (rt.states.size / 2**20, {"restores": rt.states.stats.restores})
    return out


def apibank_accuracy(name: str, args: argparse.Namespace) -> dict:
    """Right API (TC) and right full call (TS) over API-Bank level-1 call samples, via the real agent."""
    from core.agents import AgentConfig
    from core.benchmarks.registry import get_benchmark
    from core.cli.evaluate import sample_tasks
    from core.config import data_dir
    from core.runner import RunPlan, run
    from core.warehouse import Warehouse

    bench = get_benchmark("api-bank-upstream", data_dir())
    tasks = sample_tasks(bench.tasks(), args.apibank if args.apibank > 0 else None, seed=0)
    config = AgentConfig(model=f"local/{name}", max_steps=1, time_limit_s=600, max_tokens=256)
    wh = Warehouse(args.warehouse)
    t0 = time.perf_counter()
    res = run(
        wh,
        RunPlan(
            bench, bench.original_docs(), config, tasks, repeats=1, kind="bench", name="bench-local-apibank"
        ),
        concurrency=1,
    )
    eps = wh.query(
        """SELECT e.task_id, e.success, e.tool_correct, e.latency_s, e.n_steps, e.tokens_in, e.tokens_out
           FROM run_episodes re JOIN episodes e USING (episode_id) WHERE re.run_id = ?""",
        [res.run_id],
    )
    usable = {t.task_id for t in tasks if t.meta.get("status") == "usable"}
    sub = eps[eps["task_id"].isin(usable)]
    calls = wh.query(
        """SELECT avg(ev.latency_s) AS s, count(*) AS n FROM run_episodes re
           JOIN events ev USING (episode_id) WHERE re.run_id = ? AND ev.kind = 'model_call'""",
        [res.run_id],
    ).iloc[0]
    detail = {"n": len(eps), "run_id": res.run_id, "ran": res.ran, "wall_s": time.perf_counter() - t0}
    return {
        "apibank_right_api": (float(eps["tool_correct"].mean()), detail),
        "apibank_right_call": (float(eps["success"].mean()), detail),
        "apibank_usable_right_api": (float(sub["tool_correct"].mean()), {"n": len(sub)}),
        "apibank_usable_right_call": (float(sub["success"].mean()), {"n": len(sub)}),
        "apibank_s_per_call": (
            float(calls["s"]),
            {"calls": int(calls["n"]), "mean_prompt_tokens": float(eps["tokens_in"].mean())},
        ),
    }


def style_probe(name: str, args: argparse.Namespace) -> dict:
    """Right calls with Qwen's own tool format (`DOCSCHISEL_LOCAL_STYLE=qwen`) vs the default, same samples."""
    from core.agents import AgentConfig
    from core.benchmarks.registry import get_benchmark
    from core.cli.evaluate import sample_tasks
    from core.config import data_dir
    from core.runner import RunPlan, run
    from core.warehouse import Warehouse

    bench = get_benchmark("api-bank-upstream", data_dir())
    tasks = sample_tasks(bench.tasks(), args.style_probe, seed=1)
    config = AgentConfig(model=f"local/{name}", max_steps=1, time_limit_s=600, max_tokens=256)
    out = {}
    for style in ("json", "qwen"):
        os.environ["DOCSCHISEL_LOCAL_STYLE"] = style
        # episode ids do not depend on the style: each style gets its own warehouse
        path = Path(args.warehouse).with_name(f"bench-local-style-{style}.duckdb")
        res = run(
            Warehouse(path),
            RunPlan(bench, bench.original_docs(), config, tasks, repeats=1, kind="bench"),
            concurrency=1,
        )
        out[f"style_{style}_right_call"] = (res.metrics.ts, {"n": res.metrics.n, "warehouse": str(path)})
        out[f"style_{style}_right_api"] = (res.metrics.tc, {"n": res.metrics.n})
    os.environ.pop("DOCSCHISEL_LOCAL_STYLE", None)
    return out


def host_info() -> dict:
    info = {"cores": os.cpu_count(), "load_avg_1m": os.getloadavg()[0]}
    try:
        import llama_cpp

        info["llama_cpp"] = llama_cpp.llama_print_system_info().decode("utf-8", "ignore").strip()
    except ImportError:
        pass
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--models", default="", help="comma-separated local model names (default: every installed one)"
    )
    ap.add_argument(
        "--apibank", type=int, default=-1, help="API-Bank samples: -1 all, 0 none, N a seeded sample"
    )
    ap.add_argument("--no-apibank", dest="apibank", action="store_const", const=0)
    ap.add_argument("--skip-assembly", action="store_true", help="do not time the assembly of part packages")
    ap.add_argument(
        "--no-speed",
        dest="speed",
        action="store_false",
        help="measure accuracy only (no throughput or prefix-reuse timings): for a busy machine, so the "
        "speed figures stored from a quiet run stay the newest",
    )
    ap.add_argument(
        "--style-probe",
        type=int,
        default=30,
        help="API-Bank samples for the tool-format comparison (0: skip)",
    )
    ap.add_argument("--warehouse", default="data/bench-local.duckdb")
    ap.add_argument(
        "--also-threads",
        default="",
        help="comma-separated llama.cpp thread counts to measure speed with as well (e.g. 2: one process "
        "using both cores); stored as metrics suffixed _t<N>",
    )
    ap.add_argument("--one", help=argparse.SUPPRESS)  # internal: measure one model in this process
    args = ap.parse_args(argv)

    if args.one:
        print("RESULT " + json.dumps(measure_one(args.one, args)), flush=True)
        return 0

    from core.llm import weights
    from core.warehouse import Warehouse
    from core.warehouse.records import content_hash

    names = [n for n in args.models.split(",") if n] or [
        m.name for m in weights.MODELS.values() if weights.installed(m)
    ]
    passthrough = [
        *([] if args.speed else ["--no-speed"]),
        f"--apibank={args.apibank}",
        f"--warehouse={args.warehouse}",
        f"--style-probe={args.style_probe}",
    ] + (["--skip-assembly"] if args.skip_assembly else [])
    results = []

    def child(name: str, extra: list[str], env: dict[str, str] | None = None) -> dict | None:
        proc = subprocess.run(
            [sys.executable, __file__, "--one", name, *extra],
            capture_output=True,
            text=True,
            check=False,
            env={**os.environ, **(env or {})},
        )
        line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if proc.returncode != 0 or line is None:
            print(proc.stdout[-2000:], proc.stderr[-4000:], file=sys.stderr)
            print(f"   failed (exit {proc.returncode})")
            return None
        res = json.loads(line[len("RESULT ") :])
        if "error" in res:
            print(f"   unavailable: {res['error']}")
            return None
        return res

    speed_only = ["--apibank=0", "--style-probe=0", "--skip-assembly", f"--warehouse={args.warehouse}"]
    bench_id = content_hash("bench", {"script": "local_model", "argv": sys.argv[1:], "t": time.time()})
    stored = 0
    for name in names:
        print(f"== local/{name}", flush=True)
        res = child(name, passthrough)
        if res is None:
            continue
        for t in [int(x) for x in args.also_threads.split(",") if x.strip()]:
            more = child(name, speed_only, {"DOCSCHISEL_LOCAL_THREADS": str(t)})
            if more is not None:
                res["figures"].update(
                    {f"{k}_t{t}": v for k, v in more["figures"].items() if "right" not in k}
                )
        print(f"   identity: {res['identity']}")
        for metric, (value, detail) in res["figures"].items():
            print(f"   {metric:28} {value:10.3f}  {json.dumps(detail)}")
        results.append(res)
        # stored as soon as the model is measured: an interrupted run keeps every finished model's figures
        rows = [
            (
                res["model"],
                metric,
                value,
                {**detail, **({"identity": res["identity"]} if metric == "load_s" else {})},
            )
            for metric, (value, detail) in res["figures"].items()
        ]
        Warehouse(args.warehouse).record_bench_results(bench_id, "local_model", rows, host_info())
        stored += len(rows)
        print(f"   stored {len(rows)} figures as bench {bench_id} in {args.warehouse}", flush=True)
    if stored:
        print(f"stored {stored} figures as bench {bench_id} in {args.warehouse}")
    return 0 if len(results) == len(names) else 1


if __name__ == "__main__":
    raise SystemExit(main())
