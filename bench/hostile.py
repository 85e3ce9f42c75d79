"""The hostile-folder suite: 25 user benchmark folders that attack the loader, the tools' sandbox and the warehouse.

Each folder is a valid one-tool benchmark with one thing made hostile: a
`tools.py` that exits, hangs, eats memory or prints the environment at import
or when called; tasks, state or docs nested 100,000 levels deep, 200,000-term
gold calls, invalid UTF-8, a symlink out of the folder, an MCP doc without
inputSchema. Every folder runs in its own process, as the dashboard and the CLI
would run it: import the folder into a fresh warehouse (`import_user_folder`),
evaluate it with a scripted agent that replays the gold calls, then
`bench check` it. Printed per folder: the exit code (2 load error, 1 failed
check, 0 nothing failed), the seconds until it ended, the message, the data
rows written (0 for every folder that fails to load) and whether a planted
fake API key reached the warehouse file.

    python bench/hostile.py [--timeout 3] [--only NAME] [--keep DIR]

Targets: no folder runs longer than the tool timeout + 5 s past its own start
up, no failure exits 0, no secret in any warehouse file.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

FAKE_KEY = "sk-proj-HOSTILEsuiteFAKEkey0123456789"
DATA_TABLES = (
    "benchmarks",
    "tasks",
    "doc_sets",
    "doc_versions",
    "splits",
    "runs",
    "episodes",
    "events",
    "llm_calls",
)
DEEP = 100_000

BASE_TOOLS = '''
def f(x: int) -> int:
    """Return x.

    Args:
        x: A number.
    """
    return x
'''
TASK = {"id": "t1", "query": "Call f with 1.", "gold": ["f(x=1)"]}


def _tools(prefix: str = "", body: str = "return x") -> Callable[[Path], None]:
    """tools.py with `prefix` run at import and `body` as the tool's body."""

    def make(folder: Path) -> None:
        (folder / "tools.py").write_text(
            f'import os, sys, time\n{prefix}\n\ndef f(x: int) -> int:\n    """Return x."""\n    {body}\n'
        )

    return make


def _write(rel: str, data: str | bytes) -> Callable[[Path], None]:
    def make(folder: Path) -> None:
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)

    return make


def _symlink_out(folder: Path) -> None:
    (folder / "state").mkdir(exist_ok=True)
    (folder / "state" / "users.json").symlink_to("/etc/hostname")


NESTED = "[" * DEEP + "]" * DEEP
CASES: dict[str, tuple[str, Callable[[Path], None]]] = {
    # at import
    "sys_exit_import": ("sys.exit(0) at import", _tools("sys.exit(0)")),
    "os_exit_import": ("os._exit(0) at import", _tools("os._exit(0)")),
    "busy_loop_import": ("while True at import", _tools("while True:\n    pass")),
    "sleep_import": ("sleeps an hour at import", _tools("time.sleep(3600)")),
    "raise_import": ("raises at import, line 3", _tools("\nraise RuntimeError('no config')")),
    "syntax_error": ("syntax error", _tools("def broken(:\n    pass")),
    "invalid_utf8_tools": ("Latin-1 bytes in tools.py", _write("tools.py", BASE_TOOLS.encode() + b"# caf\xe9\n")),
    "memory_bomb_import": ("allocates 64 GB at import", _tools("_hog = bytearray(64 * 1024 ** 3)")),
    # in a call
    "sys_exit_call": ("the tool calls sys.exit(0)", _tools(body="sys.exit(0)")),
    "os_exit_call": ("the tool calls os._exit(0)", _tools(body="os._exit(0)")),
    "sleep_call": ("the tool sleeps an hour", _tools(body="time.sleep(3600)")),
    "busy_loop_call": ("the tool spins forever", _tools(body="while True:\n        pass")),
    "memory_bomb_call": ("the tool allocates 64 GB", _tools(body="return len(bytearray(64 * 1024 ** 3))")),
    "recursion_call": ("the tool recurses without end", _tools(body="return f(x + 1)")),
    "huge_return": ("the tool returns 100 MB", _tools(body="return 'x' * (100 * 1024 * 1024)")),
    "env_dump_call": ("the tool returns the environment", _tools(body="return dict(os.environ)")),
    "print_flood": ("the tool prints 5 MB", _tools(body="print('y' * (5 * 1024 * 1024)); return x")),
    # data files
    "deep_json_tasks": ("a task nested 100k levels", _write("tasks.jsonl", json.dumps(TASK) + '\n{"id": "t2", "query": "q", "gold": [], "meta": {"a": ' + NESTED + "}}\n")),
    "huge_gold_expression": ("a 200k-term gold call", _write("tasks.jsonl", json.dumps({**TASK, "gold": ["f(x=" + "+".join(["1"] * 200_000) + ")"]}) + "\n")),
    "deep_json_state": ("state nested 100k levels", _write("state/db.json", NESTED)),
    "deep_json_tool_doc": ("a tool doc nested 100k levels", _write("tools/f.json", '{"name": "f", "inputSchema": ' + "{" * DEEP + "}" * DEEP + "}")),
    "deep_json_manifest": ("benchmark.json nested 100k levels", _write("benchmark.json", '{"description": ' + NESTED + "}")),
    "invalid_utf8_tasks": ("Latin-1 bytes in tasks.jsonl", _write("tasks.jsonl", json.dumps(TASK).encode() + b'\n{"id": "t2", "query": "caf\xe9", "gold": []}\n')),
    "symlink_out_of_folder": ("state/users.json -> /etc/hostname", _symlink_out),
    "mcp_without_input_schema": ("MCP doc without inputSchema", _write("tools/f.json", json.dumps({"name": "f", "description": "Return x.", "annotations": {"readOnlyHint": True}}))),
}  # fmt: skip


def build(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "tools.py").write_text(BASE_TOOLS)
    (folder / "tasks.jsonl").write_text(json.dumps(TASK) + "\n")
    CASES[name][1](folder)
    return folder


# ---------------------------------------------------------------------- one folder, in its own process
def run_case(folder: Path, db: Path) -> int:
    """Import and check one folder (timed: the seconds until the error), then evaluate it; print a JSON line."""
    from core.agents import AgentConfig
    from core.benchmarks.userfolder import (
        BenchmarkFolderError,
        check,
        import_user_folder,
        load_user_benchmark,
    )
    from core.docs import ToolDoc
    from core.docs.tokens import token_length
    from core.llm import script, tool_call
    from core.runner import RunPlan, run
    from core.warehouse import Warehouse

    token_length(ToolDoc(tool="warm_up"))  # imports the tokenizer (litellm): start-up, not the folder's time
    t0 = time.monotonic()
    wh = Warehouse(db)

    def emit(code: int, message: str) -> int:
        print(json.dumps({"message": message, "seconds": round(time.monotonic() - t0, 2)}))
        return code

    try:
        import_user_folder(wh, folder)  # what the dashboard's Data page does
        bench = load_user_benchmark(folder)
    except BenchmarkFolderError as exc:
        more = f" (+{len(exc.problems) - 1} more)" if len(exc.problems) > 1 else ""
        return emit(2, f"{exc.problems[0]}{more}")
    report = check(bench)
    seconds = round(time.monotonic() - t0, 2)
    gold = {t.query: list(t.gold) for t in bench.tasks()}

    def replay(messages):
        done = sum(1 for m in messages if m.get("role") == "tool")
        calls = gold.get(next(m["content"] for m in messages if m["role"] == "user"), [])
        return tool_call(calls[done].tool, **calls[done].args) if done < len(calls) else "Done."

    agent = script(replay, name="gold-replay")
    plan = RunPlan(
        bench, bench.original_docs(), AgentConfig(model=agent.model, time_limit_s=30), bench.tasks()
    )
    run(wh, plan, concurrency=1)  # the episodes a user would get (rows), after the timed part
    if report["ok"]:
        message, code = "loaded, evaluated and checked without a failure", 0
    else:
        first = report["failures"][0]
        message, code = f"bench check: {first.get('error') or first}", 1
    print(json.dumps({"message": message, "seconds": seconds}))
    return code


# ---------------------------------------------------------------------- the suite
def rows_written(db: Path) -> int | None:
    if not db.exists():
        return 0
    from core.warehouse import Warehouse
    from core.warehouse.store import close_all

    wh = Warehouse(db)
    n = sum(int(wh.scalar(f"SELECT count(*) FROM {t}")) for t in DATA_TABLES)
    close_all()
    return n


def leaked(db: Path) -> bool:
    blob = b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))
    return FAKE_KEY.encode() in blob


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=3.0, help="Tool call and import timeout (seconds).")
    parser.add_argument("--only", default=None, help="Run one case.")
    parser.add_argument("--keep", default=None, help="Build the folders here and keep them.")
    parser.add_argument("--case", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--warehouse", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        return run_case(Path(args.case), Path(args.warehouse))

    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hostile-"))
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "DOCSCHISEL_TOOL_TIMEOUT": str(args.timeout),
        "DOCSCHISEL_TOOL_IMPORT_TIMEOUT": str(args.timeout),
        "OPENAI_API_KEY": FAKE_KEY,  # must never reach a warehouse file
    }
    names = [args.only] if args.only else list(CASES)
    print(f"{'folder':<26} {'exit':>4} {'seconds':>7} {'rows':>5} {'leak':>4}  message")
    bad = 0
    for name in names:
        folder = build(root, name)
        db = root / f"{name}.duckdb"
        t0 = time.monotonic()
        try:
            done = subprocess.run(
                [sys.executable, __file__, "--case", str(folder), "--warehouse", str(db)],
                env=env,
                capture_output=True,
                text=True,
                timeout=4 * args.timeout + 60,
                check=False,
            )
            code, out = done.returncode, done.stdout.strip().splitlines()
            result = json.loads(out[-1]) if out and out[-1].startswith("{") else {}
            message = result.get("message") or (done.stderr.strip().splitlines() or ["?"])[-1]
            seconds = float(result.get("seconds", time.monotonic() - t0))
        except subprocess.TimeoutExpired:
            code, message, seconds = -1, "HANG: killed by the suite", time.monotonic() - t0
        rows = rows_written(db)
        leak = leaked(db) if db.exists() else False
        ok = code != -1 and not leak and (code != 2 or rows == 0) and seconds <= args.timeout * 2 + 5
        bad += not ok
        print(f"{name:<26} {code:>4} {seconds:>7.1f} {rows:>5} {'YES' if leak else 'no':>4}  {message[:110]}")
    print(f"{len(names) - bad}/{len(names)} folders contained ({root})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
