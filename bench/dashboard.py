"""Dashboard benchmark: a 100k-episode / 1M-event warehouse, the trace filter query and every page render.

    python bench/dashboard.py [--episodes 100000] [--events-per-episode 10] [--keep PATH]

Targets (issue 7): the Traces page's filter query under 300 ms, each page
rendered (AppTest, through app.py's router) under 2 s. The synthetic rows are
generated with DuckDB SQL straight into the file (the fast way to make a
million events); the sample warehouse made by the real producers (core.sample) is built first so
every page has its diagnoses, candidates and field-impact rows too.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import duckdb  # noqa: E402
import streamlit.logger  # noqa: E402

from core.sample import seeded_copy  # noqa: E402
from core.warehouse import Warehouse  # noqa: E402
from core.warehouse.store import close_all  # noqa: E402

DOMAINS = ["shop", "calendar", "analytics", "crm", "project", "finance", "health", "travel"]
MODELS = ["gpt-4-0125-preview", "claude-2", "local/smollm2-135m", "mixtral-8x7b", "llama-2-70b"]
WORDS = [
    "budget",
    "roadmap",
    "launch",
    "invoice",
    "hiring",
    "security",
    "meeting",
    "report",
    "visits",
    "plot",
]


def generate(path: Path, n_episodes: int, per_episode: int) -> dict[str, float]:
    """Add tasks, runs, doc sets, episodes and events with set-based SQL; returns timings."""
    t = {}
    con = duckdb.connect(str(path))
    t0 = time.perf_counter()
    con.execute(
        f"""
        INSERT INTO tasks (benchmark, task_id, domain, query, gold, tools, meta)
        SELECT 'bench', 'task-' || i,
               {DOMAINS}[1 + i % 8],
               'Please ' || {WORDS}[1 + i % 10] || ' the ' || {WORDS}[1 + (i // 10) % 10] || ' for '
                 || {WORDS}[1 + (i // 100) % 10] || ' number ' || i,
               '[{{"tool": "' || {DOMAINS}[1 + i % 8] || '.tool_' || (i % 5) || '", "args": {{"x": ' || i || '}}}}]',
               [{DOMAINS}[1 + i % 8] || '.tool_' || (i % 5)],
               '{{}}'
        FROM range(3000) r(i)
        """
    )
    con.execute(
        """
        INSERT INTO runs (run_id, kind, name, benchmark, config, versions, created_at)
        SELECT 'bench-run-' || i, 'eval', 'bench eval ' || i, 'bench', '{}', '{}', TIMESTAMP '2026-01-01' + i * INTERVAL 1 HOUR
        FROM range(50) r(i)
        """
    )
    con.execute(
        """
        INSERT INTO doc_sets (docset_id, name, benchmark, origin, meta, created_at)
        SELECT 'bench-docs-' || i, 'bench docs ' || i, 'bench',
               ['original', 'easytool', 'draft', 'docschisel'][1 + i % 4], '{}', TIMESTAMP '2026-01-01'
        FROM range(20) r(i)
        """
    )
    con.execute(
        f"""
        INSERT INTO episodes (episode_id, run_id, benchmark, task_id, domain, docset_id, config_id, "repeat",
                              model, paradigm, variant, split, success, tool_correct, score, calls, final_answer,
                              error, error_class, n_steps, tokens_in, tokens_out, cost, latency_s, source,
                              started_at, finished_at)
        SELECT 'bench-ep-' || i, 'bench-run-' || (i % 50), 'bench', 'task-' || (i % 3000), {DOMAINS}[1 + (i % 3000) % 8],
               'bench-docs-' || (i % 20), 'cfg-' || (i % 7), i % 3, {MODELS}[1 + i % 5], 'react/native', '',
               ['opt', 'val', 'test', 'test', 'test'][1 + i % 5],
               hash(i) % 100 < 45, hash(i + 1) % 100 < 70, '{{}}',
               '[{{"tool": "t", "args": {{}}}}]', 'done', NULL,
               CASE WHEN hash(i) % 100 >= 45 THEN ['tool_exception', 'iteration_limit', 'output_parsing', NULL][1 + i % 4] END,
               {per_episode} // 2, 500 + i % 700, 40 + i % 90, 0.0, 1.5 + (i % 30) / 10.0, 'run',
               TIMESTAMP '2026-01-01' + i * INTERVAL 7 SECOND, TIMESTAMP '2026-01-01' + i * INTERVAL 7 SECOND
        FROM range({n_episodes}) r(i)
        """
    )
    t["episodes_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    con.execute(
        f"""
        INSERT INTO events (episode_id, seq, kind, tool, args, output, error, text, payload, tokens_in, tokens_out,
                            latency_s, cost, cache_hit, ts)
        SELECT 'bench-ep-' || i, s,
               ['model_call', 'thought', 'tool_call', 'model_call', 'tool_call'][1 + s % 5],
               CASE WHEN s % 5 IN (2, 4) THEN 'tool_' || (i % 5) END,
               CASE WHEN s % 5 IN (2, 4) THEN '{{"x": ' || i || '}}' END,
               CASE WHEN s % 5 IN (2, 4) THEN 'observation ' || i END,
               NULL,
               CASE WHEN s % 5 = 1 THEN 'thinking about step ' || s END,
               NULL, 300, 30, 0.5, 0.0, false, TIMESTAMP '2026-01-01' + i * INTERVAL 7 SECOND
        FROM range({n_episodes}) r(i), range({per_episode}) q(s)
        """
    )
    con.execute(
        f"INSERT INTO run_episodes SELECT 'bench-run-' || (i % 50), 'bench-ep-' || i FROM range({n_episodes}) r(i)"
    )
    con.execute("CHECKPOINT")
    con.close()
    t["events_s"] = time.perf_counter() - t0
    return t


def timed(fn, repeat: int = 5) -> tuple[float, float]:  # noqa: ANN001
    """(first call ms, median of the next `repeat` calls ms)."""
    t0 = time.perf_counter()
    fn()
    first = (time.perf_counter() - t0) * 1000
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - t0) * 1000)
    return first, statistics.median(runs)


def bench_queries(wh: Warehouse) -> list[tuple[str, float, float]]:
    from core.ui.queries import traces as q

    cases = {
        "no filter": q.TraceFilter(),
        "domain + failed": q.TraceFilter(domain="shop", outcome="failed"),
        "model + split + failure class": q.TraceFilter(
            model="claude-2", split="test", failure="tool_exception"
        ),
        "search 2 words": q.TraceFilter(search="budget roadmap"),
        "tool (ground truth) + failed": q.TraceFilter(tool="email.tool_0", outcome="failed"),
        "run + doc set": q.TraceFilter(run="bench-run-7", docset="bench-docs-7"),
        "benchmark, deep page (offset 50k)": q.TraceFilter(benchmark="bench"),
    }
    out = []
    for name, f in cases.items():
        offset = 50_000 if "deep" in name else 0
        first, med = timed(lambda f=f, o=offset: q.trace_page.raw(wh, f, o, 25))
        out.append((f"filter: {name}", first, med))
    f = q.TraceFilter(domain="shop", outcome="failed")
    _, page = q.trace_page.raw(wh, f, 0, 25)
    ep = page["episode_id"].iloc[10]
    out.append(("position of a trace (prev/next)", *timed(lambda: q.trace_position.raw(wh, f, ep))))
    out.append(("open one episode (events, task, diagnoses)", *timed(lambda: q.episode_detail.raw(wh, ep))))
    out.append(("filter options (distinct values)", *timed(lambda: q.filter_options.raw(wh))))
    return out


def bench_pages(path: Path) -> list[tuple[str, float, float]]:
    import streamlit as st

    from core.ui.components import PAGE_FILES
    from core.ui.testing import open_app, problems, show

    out = []
    at = open_app(path)
    t0 = time.perf_counter()
    for page in PAGE_FILES:  # warm-up: module imports (pandas, Altair) are paid once per server process
        show(at, page)
    print(f"  first pass over all pages (imports, process warm-up): {time.perf_counter() - t0:.1f} s")
    for page in PAGE_FILES:
        st.cache_data.clear()
        t0 = time.perf_counter()
        show(at, page)
        cold = (time.perf_counter() - t0) * 1000
        bad = problems(at)
        if bad:
            raise SystemExit(f"page {page} failed: {bad[:2]}")
        t0 = time.perf_counter()
        at.run()
        warm = (time.perf_counter() - t0) * 1000
        out.append((f"page: {page}", cold, warm))
    return out


def warehouse_options(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of both dashboard benchmarks (this one and bench/pages.py): warehouse size, where to keep it."""
    parser.add_argument("--episodes", type=int, default=100_000)
    parser.add_argument("--events-per-episode", type=int, default=10)
    parser.add_argument("--keep", type=Path, default=None, help="Write the warehouse here and keep it.")
    return parser


def main() -> None:
    args = warehouse_options(argparse.ArgumentParser(description=__doc__.split("\n")[0])).parse_args()

    streamlit.logger.set_log_level("error")
    folder = Path(tempfile.mkdtemp(prefix="docschisel-bench-"))
    path = args.keep or folder / "bench.duckdb"
    t0 = time.perf_counter()
    seeded_copy(path)
    close_all()
    seed_s = time.perf_counter() - t0
    gen = generate(path, args.episodes, args.events_per_episode)
    wh = Warehouse(path)
    n_ep = wh.scalar("SELECT count(*) FROM episodes")
    n_ev = wh.scalar("SELECT count(*) FROM events")
    print(f"warehouse {path}: {n_ep:,} episodes, {n_ev:,} events, {path.stat().st_size / 1e6:,.0f} MB")
    print(
        f"  generated in {gen['episodes_s'] + gen['events_s']:.1f} s (sample study seeded in {seed_s:.1f} s)"
    )
    rows = bench_queries(wh)
    close_all()
    rows += bench_pages(path)
    print()
    print(f"{'measure':<48} {'first (ms)':>11} {'median (ms)':>12}  target")
    for name, first, med in rows:
        target = 300 if name.startswith("filter") else 2000 if name.startswith("page") else None
        ok = "" if target is None else ("ok" if max(first, med) < target else f"OVER {target} ms")
        print(f"{name:<48} {first:>11.0f} {med:>12.0f}  {ok}")
    print(
        "\npages: 'first' = render with the query cache cleared (after one warm-up pass over all pages), "
        "'median' column = rerun with warm cache"
    )


if __name__ == "__main__":
    main()
