"""Hostile tools, leaked keys, an open dashboard and failures that must be recorded as such.

One test per finding of the attacker's probe (items 0-11); each fails on the
code before the hardening. User code runs in worker processes here, so a test
that provokes `os._exit` or an endless loop cannot take pytest down with it.
"""

from __future__ import annotations

import inspect
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from core.agents import AgentConfig
from core.benchmarks.userfolder import BenchmarkFolderError
from core.benchmarks.userfolder import load_user_benchmark as _load
from core.config import PROJECT_ROOT
from core.llm import script, tool_call
from core.runner import RunPlan, run
from core.warehouse import Warehouse
from core.warehouse.store import close_all

NOTES = PROJECT_ROOT / "tests" / "fixtures" / "userbench" / "notes"


def limits(call_s: float = 2.0, import_s: float = 5.0):  # noqa: ANN201 - core.sandbox.Limits
    try:
        from core.sandbox import Limits
    except ImportError:  # the code before workers existed: each test then fails on its own assertion
        return None
    return Limits(call_s=call_s, import_s=import_s)


def load_user_benchmark(path: Path, **kw):  # noqa: ANN201 - a UserBenchmark
    """Load a folder with short worker limits (the tests provoke hangs on purpose)."""
    kw.setdefault("limits", limits())
    if kw["limits"] is None or "limits" not in inspect.signature(_load).parameters:
        kw.pop("limits")  # the code before workers existed: each test then fails on its own assertion
    return _load(path, **kw)


def folder(root: Path, tools: str, tasks: list[dict], manifest: dict | None = None, name: str = "b") -> Path:
    """A user benchmark folder with these tools and tasks."""
    path = root / name
    path.mkdir(parents=True, exist_ok=True)
    (path / "tools.py").write_text(textwrap.dedent(tools))
    (path / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    if manifest is not None:
        (path / "benchmark.json").write_text(json.dumps(manifest))
    return path


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """`docschisel ARGS` in a fresh process, as a user runs it."""
    full = {
        **os.environ,
        "PYTHONPATH": str(PROJECT_ROOT),
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "core.cli.main", *args],
        cwd=PROJECT_ROOT,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def one_line_error(done: subprocess.CompletedProcess) -> str:
    """stderr of a failed command, checked to be an error message and not a traceback."""
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr, done.stderr
    return done.stderr


def answer_directly(messages):  # noqa: ANN001 - a scripted model
    return "Done."


# ---------------------------------------------------------------- 0: infrastructure failures
def test_item_00_missing_model_stops_the_run_and_stores_nothing(tmp_path: Path) -> None:
    db = tmp_path / "wh.duckdb"
    args = ("eval", "-b", str(NOTES), "--model", "local/smollm2-135m", "--split", "all", "--limit", "2")
    done = cli(*args, "--warehouse", str(db), env={"DOCSCHISEL_LOCAL_GGUF": str(tmp_path / "absent.gguf")})
    err = one_line_error(done)
    assert "not available" in err and "absent.gguf" in err and "TS" not in done.stdout
    wh = Warehouse(db)
    assert wh.scalar("SELECT count(*) FROM episodes") == 0
    assert wh.scalar("SELECT arg_max(status, ts) FROM run_status") == "failed"


def test_item_00_provider_outage_is_not_an_episode_and_is_retried(warehouse: Warehouse, llm_gateway) -> None:
    import litellm

    llm_gateway.configure(max_retries=0)
    bench = load_user_benchmark(NOTES)
    tasks = [bench.task("lookup-1"), bench.task("lookup-2")]
    script(
        lambda m: litellm.ServiceUnavailableError("down", llm_provider="x", model="y"), name="flaky-provider"
    )
    plan = RunPlan(bench, bench.original_docs(), AgentConfig(model="scripted/flaky-provider"), tasks)
    first = run(warehouse, plan, concurrency=1)
    assert (first.ran, first.reused, first.infra_failed, first.metrics.n) == (0, 0, 2, 0)
    assert warehouse.scalar("SELECT count(*) FROM episodes") == 0
    assert warehouse.scalar("SELECT count(DISTINCT error_class) FROM infra_failures") == 1
    script(answer_directly, name="flaky-provider")  # the provider is back
    second = run(warehouse, plan, concurrency=1)
    assert (second.ran, second.reused, second.infra_failed) == (2, 0, 0)


def test_item_00_a_stored_missing_model_failure_is_run_again(warehouse: Warehouse) -> None:
    """Episodes stored by the old code as the agent's error ('LocalModelUnavailable: ...') are not reused."""
    bench = load_user_benchmark(NOTES)
    model = script(answer_directly, name="installed-now")
    plan = RunPlan(bench, bench.original_docs(), AgentConfig(model=model.model), [bench.task("lookup-1")])
    run(warehouse, plan, concurrency=1)
    episode_id = warehouse.scalar("SELECT episode_id FROM episodes")
    stored = warehouse.query("SELECT * FROM episodes").iloc[0].to_dict()
    with warehouse.transaction() as con:  # what the old code stored when the model was missing
        con.execute("DELETE FROM episodes")
    from core.warehouse import Episode

    legacy = Episode(
        **{
            k: stored[k]
            for k in (
                "episode_id",
                "run_id",
                "benchmark",
                "task_id",
                "domain",
                "docset_id",
                "config_id",
                "repeat",
                "model",
                "paradigm",
            )
        },
        success=False,
        tool_correct=False,
        error="LocalModelUnavailable: llama-cpp-python is not installed",
        error_class="agent_error",
    )
    warehouse.record_episode(legacy, [])
    again = run(warehouse, plan, concurrency=1)
    assert (again.ran, again.reused) == (1, 0)
    assert warehouse.scalar("SELECT count(*) FROM episodes WHERE episode_id = ?", [episode_id]) == 1
    assert warehouse.scalar("SELECT error FROM episodes") is None


def test_item_00_rejected_key_stops_the_run(warehouse: Warehouse, llm_gateway) -> None:
    import litellm

    from core.runner import RunAborted

    bench = load_user_benchmark(NOTES)
    script(lambda m: litellm.AuthenticationError("invalid key", llm_provider="x", model="y"), name="bad-key")
    plan = RunPlan(bench, bench.original_docs(), AgentConfig(model="scripted/bad-key"), bench.tasks()[:3])
    with pytest.raises(RunAborted, match="rejected the credentials"):
        run(warehouse, plan, concurrency=1)
    assert warehouse.scalar("SELECT count(*) FROM episodes") == 0


# ---------------------------------------------------------------- 1: SystemExit and os._exit
EXITING = """
import os, sys

def leave(x: int) -> int:
    sys.exit(0)

def vanish(x: int) -> int:
    os._exit(0)

def echo(x: int) -> int:
    return x
"""


def test_item_01_exiting_tools_are_tool_errors_and_the_run_finishes(
    tmp_path: Path, warehouse: Warehouse
) -> None:
    tasks = [
        {"id": f"t{i}", "query": f"call {t}", "gold": [f"{t}(x=1)"]}
        for i, t in enumerate(("leave", "vanish", "echo"))
    ]
    bench = load_user_benchmark(folder(tmp_path, EXITING, tasks), limits=limits())

    def reply(messages):
        if messages[-1]["role"] == "tool":
            return "Done."
        tool = next(m["content"] for m in messages if m["role"] == "user").split()[-1]
        return tool_call(tool, x=1)

    model = script(reply, name="exiting-tools")
    res = run(warehouse, RunPlan(bench, bench.original_docs(), AgentConfig(model=model.model), bench.tasks()))
    assert res.ran == 3 and warehouse.scalar("SELECT arg_max(status, ts) FROM run_status") == "finished"
    events = dict(warehouse.rows("SELECT tool, error_class FROM events WHERE kind = 'tool_call'"))
    assert events == {"leave": "tool_crash", "vanish": "tool_crash", "echo": None}
    assert warehouse.scalar("SELECT error FROM events WHERE tool = 'leave'") == "SystemExit: 0"


def test_item_01_exit_at_import_fails_bench_check(tmp_path: Path) -> None:
    tasks = [{"id": "t", "query": "q", "gold": ["f(x=1)"]}]
    for body in ("import os\nos._exit(0)\n", "import sys\nsys.exit(0)\n"):
        path = folder(tmp_path, body + "def f(x: int) -> int:\n    return x\n", tasks, name=f"b{len(body)}")
        err = one_line_error(cli("bench", "check", str(path)))
        assert "tools.py" in err and "import" in err


# ---------------------------------------------------------------- 2: timeouts
SLOW = """
import time

def nap(seconds: float) -> str:
    time.sleep(seconds)
    return "awake"
"""


def test_item_02_a_hanging_tool_call_times_out_and_the_worker_restarts(tmp_path: Path) -> None:
    from core.benchmarks.base import Call, ToolError

    tasks = [{"id": "t", "query": "q", "gold": ["nap(seconds=0)"]}]
    bench = load_user_benchmark(folder(tmp_path, SLOW, tasks), limits=limits(1.0))
    sandbox = bench.new_sandbox(bench.task("t"))
    t0 = time.monotonic()
    with pytest.raises(ToolError) as info:
        sandbox.execute(Call("nap", {"seconds": 3600}))
    assert info.value.error_class == "tool_timeout" and time.monotonic() - t0 < 1.0 + 5
    assert sandbox.execute(Call("nap", {"seconds": 0})) == "awake"  # a fresh worker took over


def test_item_02_a_tool_call_does_not_outlive_the_episode(tmp_path: Path, warehouse: Warehouse) -> None:
    tasks = [{"id": "t", "query": "q", "gold": ["nap(seconds=0)"]}]
    bench = load_user_benchmark(folder(tmp_path, SLOW, tasks), limits=limits(60.0))
    model = script(
        lambda m: "Done." if m[-1]["role"] == "tool" else tool_call("nap", seconds=40), name="napper"
    )
    config = AgentConfig(model=model.model, time_limit_s=2.0)
    run(warehouse, RunPlan(bench, bench.original_docs(), config, bench.tasks()), concurrency=1)
    assert warehouse.scalar("SELECT error_class FROM episodes") == "timeout"
    # the 40 s nap was cut at the episode's deadline: measured around the call itself, so a busy
    # machine's slower worker start and imports do not enter the figure
    (latency,) = warehouse.query("SELECT latency_s FROM events WHERE kind = 'tool_call'")["latency_s"]
    assert latency < 2.0 + 5


def test_item_02_an_endless_import_is_a_load_error(tmp_path: Path) -> None:
    tasks = [{"id": "t", "query": "q", "gold": ["f(x=1)"]}]
    path = folder(tmp_path, "while True:\n    pass\n\ndef f(x: int) -> int:\n    return x\n", tasks)
    done = cli("bench", "check", str(path), env={"DOCSCHISEL_TOOL_IMPORT_TIMEOUT": "2"}, timeout=60)
    assert "did not finish within 2s" in one_line_error(done)


# ---------------------------------------------------------------- 3: secrets
def test_item_03_no_secret_reaches_the_warehouse_file(tmp_path: Path, monkeypatch, llm_gateway) -> None:
    import litellm

    key = "sk-proj-FAKEfakeFAKEfake0123456789abcdef"
    shaped = "AKIAABCDEFGHIJKLMNOP"  # a key shape nobody configured
    monkeypatch.setenv("OPENAI_API_KEY", key)
    monkeypatch.setenv("MY_SERVICE_TOKEN", "plain-token-value-42")
    llm_gateway.configure(max_retries=0)
    db = tmp_path / "wh.duckdb"
    wh = Warehouse(db)
    tools = f"""
    def leak(x: int) -> str:
        return "found {shaped} in the config"
    """
    bench = load_user_benchmark(folder(tmp_path, tools, [{"id": "t", "query": "q", "gold": ["leak(x=1)"]}]))

    def reply(messages):
        if messages[-1]["role"] == "tool":
            raise litellm.BadRequestError(f"Incorrect API key provided: {key}", model="m", llm_provider="x")
        return {"content": f"using plain-token-value-42 and {key}", "tool_calls": [tool_call("leak", x=1)]}

    model = script(reply, name="leaky")
    run(
        wh,
        RunPlan(bench, bench.original_docs(), AgentConfig(model=model.model), bench.tasks()),
        concurrency=1,
    )
    assert wh.scalar("SELECT count(*) FROM episodes WHERE error LIKE '%[redacted]%'") == 1
    close_all()
    blob = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("wh.duckdb"))
    for secret in (key, "plain-token-value-42", shaped):
        assert secret.encode() not in blob


# ---------------------------------------------------------------- 4: the dashboard
def test_item_04_dashboard_binds_to_loopback_and_needs_a_token_when_exposed(monkeypatch) -> None:
    import tomllib

    from core.cli.app import check_exposure, dashboard_command
    from core.jobs import job_env

    config = tomllib.loads((PROJECT_ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["address"] == "127.0.0.1"
    cmd = dashboard_command("127.0.0.1", 8599)
    assert cmd[cmd.index("--server.address") + 1] == "127.0.0.1"
    monkeypatch.delenv("DOCSCHISEL_DASHBOARD_TOKEN", raising=False)
    refused = cli("app", "--host", "0.0.0.0", "--port", "8599", timeout=60)
    assert refused.returncode == 2 and "DOCSCHISEL_DASHBOARD_TOKEN" in refused.stderr
    monkeypatch.setenv("DOCSCHISEL_DASHBOARD_TOKEN", "correct-horse-battery")
    assert "login required" in check_exposure("0.0.0.0")
    # jobs get the named model's key and nothing else secret
    env = {
        "PATH": "/bin",
        "OPENAI_API_KEY": "k1" * 8,
        "ANTHROPIC_API_KEY": "k2" * 8,
        "DOCSCHISEL_DASHBOARD_TOKEN": "t" * 20,
    }
    assert "OPENAI_API_KEY" not in job_env(["local/qwen2.5-coder-0.5b"], env)
    named = job_env(["openai/gpt-4o"], env)
    assert named.get("OPENAI_API_KEY") == "k1" * 8 and "ANTHROPIC_API_KEY" not in named
    assert "DOCSCHISEL_DASHBOARD_TOKEN" not in named


def test_item_04_folder_import_only_from_allowed_directories(tmp_path: Path, monkeypatch) -> None:
    from core.config import importable

    allowed = tmp_path / "allowed"
    (allowed / "mine").mkdir(parents=True)
    monkeypatch.setenv("DOCSCHISEL_USER_BENCHMARKS", str(allowed))
    assert importable(allowed / "mine") == (allowed / "mine").resolve()
    assert importable(NOTES) is None
    assert importable(allowed / "mine" / ".." / ".." / "elsewhere") is None


def test_item_04_the_exposed_dashboard_asks_for_the_token(tmp_path: Path, monkeypatch) -> None:
    from core.ui.testing import open_app

    Warehouse(tmp_path / "wh.duckdb")
    monkeypatch.setenv("DOCSCHISEL_DASHBOARD_TOKEN", "correct-horse-battery")
    at = open_app(tmp_path / "wh.duckdb").run()
    assert len(at.text_input) == 1 and not at.markdown  # only the login form
    at.text_input[0].input("wrong")
    at.button[0].click()
    assert at.run().error[0].value == "Wrong token."
    at.text_input[0].input("correct-horse-battery")
    at.button[0].click()
    assert at.run().markdown  # the overview renders


def _listening(port: int) -> list[str]:
    rows = (
        Path("/proc/net/tcp").read_text().splitlines()[1:]
        + Path("/proc/net/tcp6").read_text().splitlines()[1:]
    )
    return [r.split()[1] for r in rows if r.split()[3] == "0A" and r.split()[1].endswith(f":{port:04X}")]


@pytest.mark.slow
def test_a_supervisors_sigterm_to_the_app_command_stops_the_server_too(tmp_path: Path) -> None:
    """SIGTERM reaches only the `docschisel app` process (not a terminal's process group): the server
    it started must stop with it instead of holding the port."""
    port = 9000 + os.getpid() % 1000
    env = {**os.environ, "DOCSCHISEL_WAREHOUSE": str(tmp_path / "wh.duckdb")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "core.cli.main", "app", "--port", str(port)],
        cwd=PROJECT_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not _listening(port) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _listening(port), "the dashboard did not start"
        proc.send_signal(signal.SIGTERM)  # the parent alone
        proc.wait(timeout=60)
        deadline = time.monotonic() + 60
        while _listening(port) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not _listening(port), "the server outlived the command that started it"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.slow
def test_item_04_streamlit_listens_on_loopback_only(tmp_path: Path) -> None:
    """The real server with the project's settings: nothing listens beyond 127.0.0.1."""
    port = 8000 + os.getpid() % 1000
    env = {**os.environ, "DOCSCHISEL_WAREHOUSE": str(tmp_path / "wh.duckdb")}
    env.pop("DOCSCHISEL_DASHBOARD_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "core.cli.main", "app", "--port", str(port)],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        listening: list[str] = []
        deadline = time.monotonic() + 90
        while not listening and time.monotonic() < deadline:
            time.sleep(0.5)
            rows = (
                Path("/proc/net/tcp").read_text().splitlines()[1:]
                + Path("/proc/net/tcp6").read_text().splitlines()[1:]
            )
            listening = [
                r.split()[1] for r in rows if r.split()[3] == "0A" and r.split()[1].endswith(f":{port:04X}")
            ]
        assert listening, "the dashboard did not start"
        assert all(
            addr.split(":")[0] in ("0100007F", "00000000000000000000000001000000") for addr in listening
        ), listening
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


# ---------------------------------------------------------------- 5: task versions and names
def test_item_05_folders_sharing_a_name_never_merge_and_edits_are_new_versions(
    tmp_path: Path, warehouse: Warehouse
) -> None:
    from core.benchmarks.userfolder import import_user_folder

    tools = "def f(x: int) -> int:\n    return x\n"
    a = folder(
        tmp_path, tools, [{"id": "t", "query": "first text", "gold": ["f(x=1)"]}], {"name": "shared"}, "a"
    )
    b = folder(
        tmp_path, tools, [{"id": "t", "query": "other text", "gold": ["f(x=2)"]}], {"name": "shared"}, "b"
    )
    first, second = import_user_folder(warehouse, a), import_user_folder(warehouse, b)
    assert first["benchmark"] != second["benchmark"]
    assert warehouse.scalar("SELECT count(*) FROM tasks WHERE task_id = 't'") == 2
    (a / "tasks.jsonl").write_text(json.dumps({"id": "t", "query": "edited text", "gold": ["f(x=1)"]}) + "\n")
    edited = import_user_folder(warehouse, a)
    queries = dict(warehouse.rows("SELECT benchmark, query FROM tasks WHERE task_id = 't'"))
    assert queries[edited["benchmark"]] == "edited text" and queries[first["benchmark"]] == "first text"


# ---------------------------------------------------------------- 6: evaluating an imported folder from the dashboard
def test_item_06_the_dashboard_evaluates_an_imported_folder_by_its_path(tmp_path: Path) -> None:
    from core.benchmarks.userfolder import import_user_folder
    from core.ui.queries.data import benchmark_source
    from core.ui.views.jobs import eval_argv

    db = tmp_path / "wh.duckdb"
    summary = import_user_folder(Warehouse(db), NOTES)
    source = benchmark_source.raw(Warehouse(db), summary["benchmark"])
    assert Path(source) == NOTES.resolve()
    argv = eval_argv(source, summary["docset_id"], "test", "local/smollm2-135m", "react", str(db), limit=1)
    # the argv the job would run loads the benchmark (the model is never reached: it is not available)
    done = cli(*argv, env={"DOCSCHISEL_LOCAL_GGUF": str(tmp_path / "absent.gguf")})
    assert "unknown benchmark" not in done.stderr and "not available" in one_line_error(done)


# ---------------------------------------------------------------- 7: malformed input
def test_item_07_malformed_input_is_one_clear_error_with_file_and_line(tmp_path: Path) -> None:
    tools = "def f(x: int) -> int:\n    return x\n"
    ok = {"id": "t0", "query": "q", "gold": ["f(x=1)"]}
    deep = folder(tmp_path, tools, [ok], name="deep")
    (deep / "tasks.jsonl").write_text(
        json.dumps(ok)
        + "\n"
        + '{"id": "t1", "query": "q", "gold": [], "meta": '
        + "[" * 100_000
        + "]" * 100_000
        + "}\n"
    )
    huge = folder(
        tmp_path,
        tools,
        [ok, {"id": "t1", "query": "q", "gold": ["f(x=" + "+".join(["1"] * 200_000) + ")"]}],
        name="huge",
    )
    raising = folder(
        tmp_path,
        "import json\n\n\njson.loads('{')\ndef f(x: int) -> int:\n    return x\n",
        [ok],
        name="raising",
    )
    latin = folder(tmp_path, tools, [ok], name="latin")
    (latin / "tasks.jsonl").write_bytes(
        json.dumps(ok).encode() + b'\n{"id": "t2", "query": "caf\xe9", "gold": []}\n'
    )
    badtools = folder(tmp_path, tools, [ok], name="badtools")
    (badtools / "tools.py").write_bytes(b"def f(x: int) -> int:\n    return x\n# caf\xe9\n")
    docs = folder(tmp_path, tools, [ok], name="docs")
    (docs / "tools").mkdir()
    (docs / "tools" / "f.json").write_text('{"name": "f",\n "inputSchema": ' + "{" * 5000 + "}" * 5000 + "}")
    expected = {
        deep: ("tasks.jsonl", 2, "nested more than 64 levels"),
        huge: ("tasks.jsonl", 2, "the limit is 10,000"),
        raising: ("tools.py", 4, "JSONDecodeError"),
        latin: ("tasks.jsonl", 2, "not valid UTF-8"),
        badtools: ("tools.py", 3, "not valid UTF-8"),
        docs: ("tools/f.json", 2, "nested more than 64 levels"),
    }
    for path, (file, line, text) in expected.items():
        with pytest.raises(BenchmarkFolderError) as info:
            load_user_benchmark(path, limits=limits())
        assert (info.value.file, info.value.line) == (str(path / file), line), str(info.value)
        assert text in str(info.value)
        err = one_line_error(cli("bench", "check", str(path)))
        assert f"{path / file}:{line}" in err
    err = one_line_error(cli("bench", "check", "no-such-benchmark"))
    assert "unknown benchmark 'no-such-benchmark'" in err and err.count("\n") == 1


# ---------------------------------------------------------------- 8: accounting survives a crash
def test_item_08_llm_calls_are_written_with_their_episodes(tmp_path: Path, monkeypatch) -> None:
    from core.llm import Gateway, Ledger, use
    from core.warehouse.rows import Row  # noqa: F401 - the warehouse package is importable

    wh = Warehouse(tmp_path / "wh.duckdb")
    gateway = Gateway.for_warehouse(wh)
    gateway.ledger.flush_every = 10**9  # no periodic flush: only the episodes' transactions write calls
    monkeypatch.setattr(Ledger, "flush", lambda self: 0)  # the process "dies" before any final flush
    previous = use(gateway)
    try:
        bench = load_user_benchmark(NOTES)
        model = script(answer_directly, name="accounted")
        plan = RunPlan(bench, bench.original_docs(), AgentConfig(model=model.model), bench.tasks()[:4])
        run(wh, plan, concurrency=1, flush_s=0.0)
    finally:
        use(previous)
    calls = wh.scalar("SELECT count(*) FROM events WHERE kind = 'model_call'")
    assert calls == 4 and wh.scalar("SELECT count(*) FROM llm_calls") == calls


# ---------------------------------------------------------------- 9: trace gaps
def test_item_09_unexecuted_calls_are_tool_events_with_error_classes(warehouse: Warehouse) -> None:
    bench = load_user_benchmark(NOTES)
    replies = iter(
        [
            {
                "tool_calls": [
                    {"name": "search_notes", "arguments": '{"query": "cof'},
                    {"name": "no_such_tool", "arguments": {"a": 1}},
                    *[tool_call("search_notes", query=f"q{i}") for i in range(12)],
                ]
            },
            "Done.",
        ]
    )
    model = script(lambda m: next(replies), name="sloppy-caller")
    run(
        warehouse,
        RunPlan(bench, bench.original_docs(), AgentConfig(model=model.model), [bench.task("lookup-1")]),
    )
    classes = warehouse.query(
        "SELECT error_class, count(*) AS n FROM events WHERE kind = 'tool_call' GROUP BY ALL"
    )
    counts = dict(zip(classes["error_class"].fillna("ok"), classes["n"], strict=True))
    # 14 calls in one reply: the first 8 are considered (2 rejected, 6 run), 6 are over the cap
    assert counts == {"bad_arguments": 1, "unknown_tool": 1, "ok": 6, "too_many_calls": 6}
    raw = warehouse.scalar("SELECT args FROM events WHERE error_class = 'bad_arguments'")
    assert json.loads(raw) == {"raw": '{"query": "cof'}


# ---------------------------------------------------------------- 10: silent acceptance
def test_item_10_mcp_without_input_schema_and_links_out_of_the_folder_are_errors(tmp_path: Path) -> None:
    from core.docs.parsers import DocParseError, parse_json

    with pytest.raises(DocParseError, match='without "inputSchema"'):
        parse_json({"name": "f", "description": "d", "annotations": {"readOnlyHint": True}})
    with pytest.raises(DocParseError, match='found "input_schema"'):
        parse_json({"name": "f", "description": "d", "input_schema": {"type": "object"}})
    secret = tmp_path / "outside.json"
    secret.write_text("[]")
    path = folder(tmp_path, "def f(x: int) -> int:\n    return x\n", [{"id": "t", "query": "q", "gold": []}])
    (path / "state").mkdir()
    (path / "state" / "data.json").symlink_to(secret)
    with pytest.raises(BenchmarkFolderError, match="outside the benchmark folder"):
        load_user_benchmark(path, limits=limits())


# ---------------------------------------------------------------- 11: concurrent and killed runs
def test_item_11_identical_runs_started_together_do_the_work_once(tmp_path: Path) -> None:
    db = tmp_path / "wh.duckdb"
    bench = load_user_benchmark(NOTES)
    seen: list[str] = []

    def slow_answer(messages):
        seen.append(messages[-1]["content"])
        time.sleep(0.05)
        return "Done."

    model = script(slow_answer, name="shared-work")
    plan = RunPlan(bench, bench.original_docs(), AgentConfig(model=model.model), bench.tasks())
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(run(Warehouse(db), plan, concurrency=2)))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(results) == 2 and len(seen) == len(bench.tasks())  # every episode ran once
    assert sorted(r.ran for r in results)[1] + sorted(r.ran for r in results)[0] == len(bench.tasks())
    assert all(r.metrics.n == len(bench.tasks()) for r in results)
    assert Warehouse(db).scalar("SELECT count(*) FROM episode_claims") == 0


KILLED_RUN = textwrap.dedent(
    """
    import sys, time
    from core.agents.base import AgentConfig
    from core.runner import RunPlan, run
    from core.warehouse import Warehouse
    from tests.toybench import OracleAgent, ToyBench
    from functools import partial
    bench = ToyBench(n=40)
    plan = RunPlan(bench, bench.original_docs(), AgentConfig(model="scripted/oracle"), bench.tasks())
    run(Warehouse(sys.argv[1]), plan, agent_factory=partial(OracleAgent, sleep=0.2), concurrency=1)
    """
)


def test_item_11_a_killed_run_is_marked_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "kill.duckdb"
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(db)], env=env, cwd=PROJECT_ROOT)
    wh = Warehouse(db)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if wh.scalar("SELECT count(*) FROM episodes") >= 2:
            break
        time.sleep(0.1)
    close_all()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert wh.scalar("SELECT arg_max(status, ts) FROM run_status") == "started"
    assert len(wh.mark_interrupted()) == 1
    assert wh.scalar("SELECT arg_max(status, ts) FROM run_status") == "interrupted"
    assert wh.scalar("SELECT count(*) FROM episode_claims") > 0  # the dead run's claims, taken over next time


def test_parallel_calls_of_one_reply_keep_every_state_change(warehouse: Warehouse) -> None:
    """The framework runs a reply's tool calls in threads; the episode's state must see all of them."""
    bench = load_user_benchmark(NOTES)
    adds = [tool_call("add_note", title=f"n{i}", body="b") for i in range(4)]
    model = script(
        lambda m: "Done." if m[-1]["role"] == "tool" else {"tool_calls": adds}, name="parallel-adds"
    )
    run(
        warehouse,
        RunPlan(bench, bench.original_docs(), AgentConfig(model=model.model), [bench.task("capture-1")]),
    )
    outputs = sorted(r[0] for r in warehouse.rows("SELECT output FROM events WHERE tool = 'add_note'"))
    assert outputs == ["6", "7", "8", "9"]
