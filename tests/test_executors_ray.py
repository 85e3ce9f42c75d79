"""The ray executor on a local Ray cluster (2 CPUs, loopback): same records as local, faults, cancel.

One cluster and one executor serve the module (starting Ray costs seconds).
The benchmark is the example user folder, loaded by each worker from its
path; the agent is the real ReAct agent on a scripted model, so model calls
go through the worker's gateway, the cache relay and the driver's ledger.
Waits are on states (rows stored, processes gone), never on fixed sleeps.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

from core.agents import AgentConfig  # noqa: E402
from core.benchmarks.registry import get_benchmark  # noqa: E402
from core.llm import Gateway, script, tool_call, using  # noqa: E402
from core.runner import RunPlan, run  # noqa: E402
from core.runner.executors import LocalExecutor  # noqa: E402
from core.runner.executors.on_ray import RayExecutor  # noqa: E402
from core.warehouse import Warehouse  # noqa: E402

pytestmark = pytest.mark.ray
ROOT = Path(__file__).resolve().parent.parent
NOTES = ROOT / "tests" / "fixtures" / "userbench" / "notes"
EPISODE_COLUMNS = (
    "episode_id, task_id, repeat, success, tool_correct, score, calls, final_answer, error, "
    "error_class, n_steps, tokens_in, tokens_out"
)
# where and when an event ran (latency, cache provenance) differs by executor; what happened does not
EVENT_COLUMNS = "episode_id, seq, kind, tool, args, output, error, text, payload, tokens_in, tokens_out"


@pytest.fixture(scope="module")
def marks(tmp_path_factory) -> Path:
    """Where scripted models on the workers leave marks (the workers get DOCSCHISEL_* variables)."""
    return tmp_path_factory.mktemp("marks")


@pytest.fixture(scope="module")
def executor(marks: Path):
    os.environ["DOCSCHISEL_TEST_MARKS"] = str(marks)
    os.environ["PYTHONPATH"] = os.pathsep.join(  # workers unpickle the scripts defined in this module
        [str(ROOT), *[p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]]
    )
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    ex = RayExecutor(max_task_retries=1)
    try:
        yield ex
    finally:
        ex.shutdown()
        ray.shutdown()


def reply(messages, params=None):
    """Deterministic: the tool a task needs, then a final answer."""
    if messages[-1]["role"] == "tool":
        return "Done."
    query = next(m["content"] for m in messages if m["role"] == "user")
    if "coffee" in query:
        return tool_call("search_notes", query="coffee")
    if "dentist" in query:
        return tool_call("search_notes", query="dentist")
    if "Call plumber" in query:
        return tool_call("add_note", title="Call plumber", body="sink")
    return tool_call("tag_note", note_id=2, tag="q3")


def slow_reply(messages, params=None):
    time.sleep(0.4)
    return reply(messages, params)


def very_slow_reply(messages, params=None):
    """Says it started (a file in $DOCSCHISEL_TEST_MARKS), then takes longer than the test waits."""
    Path(os.environ["DOCSCHISEL_TEST_MARKS"], f"started-{os.getpid()}").touch()
    time.sleep(3.0)
    return reply(messages, params)


def deadly_reply(messages, params=None):
    """Kills the process it runs in on one task: that episode can never finish."""
    query = next(m["content"] for m in messages if m["role"] == "user")
    if "dentist" in query:
        os.kill(os.getpid(), signal.SIGKILL)
    return reply(messages, params)


def _plan(model: str, *, repeats: int = 1, n: int | None = None, time_limit: float = 60.0) -> RunPlan:
    bench = get_benchmark(str(NOTES))
    tasks = bench.tasks()[:n] if n else bench.tasks()
    config = AgentConfig(model=model, max_steps=3, time_limit_s=time_limit)
    return RunPlan(bench, bench.original_docs(), config, tasks, repeats=repeats)


def _run(wh: Warehouse, plan: RunPlan, executor, **kw):
    with using(Gateway.for_warehouse(wh)):
        return run(wh, plan, concurrency=2, executor=executor, **kw)


def _episodes(wh: Warehouse, run_id: str):
    return wh.query(
        f"SELECT {EPISODE_COLUMNS} FROM episodes JOIN run_episodes USING (episode_id) "
        "WHERE run_episodes.run_id = ? ORDER BY episode_id",
        [run_id],
    )


def _events(wh: Warehouse, run_id: str):
    return wh.query(
        f"SELECT {EVENT_COLUMNS} FROM events JOIN run_episodes USING (episode_id) "
        "WHERE run_episodes.run_id = ? ORDER BY episode_id, seq",
        [run_id],
    )


def test_ray_and_local_store_the_same_episodes(executor: RayExecutor, tmp_path: Path) -> None:
    model = script(reply, name="ray-same")
    plan = _plan(model.model, repeats=2, n=4)
    here, there = Warehouse(tmp_path / "local.duckdb"), Warehouse(tmp_path / "ray.duckdb")
    local = _run(here, plan, LocalExecutor())
    remote = _run(there, plan, executor)
    assert remote.run_id == local.run_id and remote.ran == local.ran == len(plan.episode_ids())
    assert remote.metrics.ts == local.metrics.ts and 0 < local.metrics.ts < 1
    assert _episodes(there, remote.run_id).equals(_episodes(here, local.run_id))
    assert _events(there, remote.run_id).equals(_events(here, local.run_id))
    # the workers' model calls are accounted and cached in the driver's warehouse, like local ones
    for table in ("llm_calls", "llm_cache"):
        count = f"SELECT count(*) FROM {table}"
        assert there.scalar(count) == here.scalar(count) > 0

    # new episodes whose requests the driver's cache knows: the workers are served through the relay
    again = _run(here, _plan(model.model, repeats=2, n=4, time_limit=61.0), executor)
    assert again.ran == local.ran
    hits = here.query(
        "SELECT cache_hit FROM events JOIN run_episodes USING (episode_id) "
        "WHERE run_episodes.run_id = ? AND kind = 'model_call'",
        [again.run_id],
    )
    assert len(hits) > 0 and hits["cache_hit"].all()


KILLED_RUN_CAP_S = 600.0


def test_a_killed_worker_loses_and_duplicates_nothing(executor: RayExecutor, tmp_path: Path) -> None:
    wh = Warehouse(tmp_path / "wh.duckdb")
    plan = _plan(script(slow_reply, name="ray-kill").model, n=6)
    out: dict = {}
    worker = threading.Thread(target=lambda: out.update(res=_run(wh, plan, executor)))
    worker.start()
    deadline = time.monotonic() + 60
    while not wh.scalar("SELECT count(*) FROM episodes") and time.monotonic() < deadline:
        time.sleep(0.1)  # wait until the run is under way: episodes stored, the next ones in flight
    pids = executor.actor_pids()
    os.kill(pids[0], signal.SIGKILL)
    # Ray restarts the actor in a fresh process (imports included) and retries its episode: on a loaded
    # 2-core machine that took over 90 s. Wait for the run to end on its own; the cap only stops a hang.
    killed = time.monotonic()
    while worker.is_alive() and time.monotonic() - killed < KILLED_RUN_CAP_S:
        worker.join(timeout=1.0)
    assert not worker.is_alive(), f"the run did not finish within {KILLED_RUN_CAP_S} s of the kill"
    res = out["res"]
    planned = sorted(eid for eid, _, _ in plan.episode_ids())
    stored = wh.query("SELECT episode_id, error_class FROM episodes ORDER BY episode_id")
    assert list(stored["episode_id"]) == planned  # every planned episode once: none lost, none twice
    assert stored["error_class"].ne("worker_lost").all()
    assert res.ran == len(planned) and not res.cancelled
    assert pids[0] not in executor.actor_pids()  # the actor came back in a new process


def test_an_episode_that_kills_its_worker_is_a_worker_lost_failure(
    executor: RayExecutor, tmp_path: Path
) -> None:
    wh = Warehouse(tmp_path / "wh.duckdb")
    bench = get_benchmark(str(NOTES))
    wanted = {"lookup-1", "lookup-3", "capture-1"}  # lookup-3 is the dentist: its worker dies every time
    tasks = [t for t in bench.tasks() if t.task_id in wanted]
    config = AgentConfig(model=script(deadly_reply, name="ray-deadly").model, max_steps=3)
    res = _run(wh, RunPlan(bench, bench.original_docs(), config, tasks), executor)
    rows = wh.query("SELECT task_id, success, error_class, error FROM episodes ORDER BY task_id")
    assert list(rows["task_id"]) == sorted(wanted) and res.ran == 3
    lost = rows.set_index("task_id").loc["lookup-3"]
    assert lost["error_class"] == "worker_lost" and not lost["success"]
    assert "died 2 times" in lost["error"]
    assert rows[rows.task_id != "lookup-3"]["error_class"].isna().all()


def test_cancel_from_a_job_stops_the_ray_run(executor: RayExecutor, marks: Path, tmp_path: Path) -> None:
    from core.jobs import cancel_requested, job_state, report_progress, request_cancel

    wh = Warehouse(tmp_path / "wh.duckdb")
    job = "eval-ray-cancel"
    report_progress(wh, job, 0, 1, "started")
    plan = _plan(script(very_slow_reply, name="ray-cancel").model)
    out: dict = {}

    def go() -> None:
        out["res"] = _run(
            wh,
            plan,
            executor,
            progress=lambda done, total, msg: report_progress(wh, job, done, total, msg),
            cancelled=lambda: cancel_requested(wh, job),
        )

    worker = threading.Thread(target=go)
    worker.start()
    deadline = time.monotonic() + 60
    while not list(marks.glob("started-*")) and time.monotonic() < deadline:
        time.sleep(0.1)  # until an episode is under way on a worker
    state = job_state(wh, job)
    assert state is not None and state.total == len(plan.tasks)  # the job card shows the run's progress
    request_cancel(wh, job, "test")
    asked = time.monotonic()
    worker.join(timeout=60)
    stopped_after = time.monotonic() - asked
    assert not worker.is_alive() and out["res"].cancelled
    # an episode needs at least 6 s of model calls: stopping sooner means the workers were stopped
    assert stopped_after < 5.0, f"the run took {stopped_after:.1f}s to stop"
    assert wh.scalar("SELECT count(*) FROM episodes") == 0
    assert wh.scalar("SELECT count(*) FROM episode_claims") == 0  # what did not run is free for the next run


def test_actors_use_the_threads_of_the_cpus_they_reserve(monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver's thread setting sizes its own model; an actor's follows its CPU reservation."""
    monkeypatch.setenv("DOCSCHISEL_LOCAL_THREADS", "2")
    monkeypatch.setenv("DOCSCHISEL_LOCAL_CTX", "4096")
    env = RayExecutor(cpus_per_actor=1.0).actor_env("local/qwen2.5-coder-0.5b")
    assert env["DOCSCHISEL_LOCAL_THREADS"] == "1" and env["DOCSCHISEL_LOCAL_CTX"] == "4096"
    assert (
        RayExecutor(cpus_per_actor=2.0).actor_env("local/qwen2.5-coder-0.5b")["DOCSCHISEL_LOCAL_THREADS"]
        == "2"
    )
