"""The EvoSOP loop on a small office benchmark with a weak scripted agent (offline, seconds)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from core.agents.base import AgentConfig
from core.benchmarks.base import Call
from core.chisel.access import GroundTruth
from core.docs import Param, ToolDoc
from core.evaluation import RunnerEvaluator
from core.sop.bench import SopBenchmark, tracing_factory
from core.sop.engines import ComposerConstructor, EvidenceReviewer, OfflineMerger
from core.sop.evolve import SopConfig, evolve, select_epoch
from core.sop.executor import Limits
from core.sop.model import Sop, Toolset, sop_tool
from core.sop.review import DEFECT, invocations_of, review_offline, writes_check
from core.sop.store import EpochSummary
from tests.sopbench import OfficeBench, RoutineAgent

LIMITS = Limits(cpu_s=1, wall_s=3, memory_mb=200)
AGENT = AgentConfig(model="scripted/routine")


def _config(**kw) -> SopConfig:
    base = dict(benchmark="office", agent=AGENT, epochs=3, batch_size=4, construct_epochs=2, limits=LIMITS)
    return SopConfig(**{**base, **kw})


def _gt(warehouse):
    return lambda run_id, split, tasks: GroundTruth(warehouse, run_id, split, tasks, allowed=("opt",))


def _run(warehouse, config: SopConfig, bench=None, **kw):
    return evolve(
        warehouse,
        config,
        benchmark=bench or OfficeBench(30),
        agent_factory=kw.pop("agent_factory", RoutineAgent),
        ground_truth=_gt(warehouse),
        concurrency=1,
        **kw,
    )


def _sop(name: str, code: str, params=("name", "text"), uses=("contacts.lookup", "mail.send")) -> Sop:
    doc = ToolDoc(
        tool=sop_tool(name),
        name=name,
        description=f"{name}: look the contact up and send.",
        parameters=tuple(Param(name=p, required=True) for p in params),
    )
    return Sop(name=name, doc=doc, code=code, uses=tuple(uses), origin="manual")


BROKEN = _sop(
    "aaa_lookup_then_send", "def aaa_lookup_then_send(name, text):\n    raise ValueError('always')\n"
)


class _Plus:
    """The composer plus fixed SOPs added in chosen epochs (to plant a broken or harmful tool)."""

    name = "composer+planted"

    def __init__(self, planted: dict[int, list[Sop]]) -> None:
        self.inner = ComposerConstructor()
        self.planted = planted

    def construct(self, experiences, atomic, existing, *, run_id, epoch):
        sops, rejected = self.inner.construct(experiences, atomic, existing, run_id=run_id, epoch=epoch)
        return [*sops, *self.planted.get(epoch, [])], rejected


def test_evosop_builds_sops_that_raise_success_and_cut_rounds(warehouse) -> None:
    res = _run(warehouse, _config())
    atomic, best = res.epochs[0], next(e for e in res.epochs if e.epoch == res.best_epoch)
    assert len(res.toolset) >= 1 and best.ts > atomic.ts and best.rounds < atomic.rounds
    assert res.test is not None and res.test["sop"]["ts"] > res.test["atomic"]["ts"]
    assert warehouse.scalar("SELECT count(*) FROM sop_results WHERE run_id = ?", [res.run_id]) == 1

    # an SOP call is traced with its inner atomic calls, and the episode's calls hold them (scored as usual)
    run = best.eval_run
    row = warehouse.rows(
        """SELECT e.episode_id, e.calls FROM episodes e JOIN run_episodes r USING (episode_id)
           WHERE r.run_id = ? AND e.success AND e.calls LIKE '%sop.%' LIMIT 1""",
        [run],
    )[0]
    calls = [c["tool"] for c in json.loads(row[1])]
    assert (
        calls[0].startswith("sop.")
        and {"contacts.lookup", "mail.send"} <= set(calls)
        or "events.search" in calls
    )
    events = warehouse.rows(
        "SELECT seq, tool, payload FROM events WHERE episode_id = ? AND kind = 'tool_call' ORDER BY seq",
        [row[0]],
    )
    parent = events[0][0]
    assert events[0][1].startswith("sop.") and events[0][2] is None
    assert all(json.loads(p)["parent_seq"] == parent for _, _, p in events[1:])

    life = warehouse.query("SELECT * FROM sop_usage WHERE run_id = ? AND invocations > 0", [res.run_id])
    assert not life.empty and (life["successes"] > 0).any()
    labels = warehouse.rows("SELECT DISTINCT unnest(labels) FROM sop_reviews WHERE run_id = ?", [res.run_id])
    assert ("optimal",) in labels

    # uptake: each evaluation with SOPs offered, from the traces (the SOP's inner calls are not the agent's)
    from core.sop.report import uptake_frame

    uptake = uptake_frame(warehouse, res.run_id)
    assert list(uptake["evaluation"])[-1] == "test" and list(uptake["evaluation"])[0] == "epoch 1"
    test = uptake.iloc[-1]
    sop_eps = warehouse.scalar(
        """SELECT count(DISTINCT e.episode_id) FROM episodes e JOIN run_episodes r USING (episode_id)
           JOIN events v USING (episode_id)
           WHERE r.run_id = ? AND v.kind = 'tool_call' AND v.tool LIKE 'sop.%'""",
        [res.test["sop"]["run_id"]],
    )
    assert test["episodes"] == res.test["sop"]["n"] and test["with an SOP call"] == sop_eps > 0


class _SopBlindAgent(RoutineAgent):
    """RoutineAgent that never sees the SOPs it is offered: it looks up and writes with the atomic tools."""

    def run(self, ctx):
        ctx.docs = [d for d in ctx.docs if not d.tool.startswith("sop.")]
        return super().run(ctx)


def test_uptake_says_when_the_agent_calls_no_sop_and_what_it_called_instead(warehouse) -> None:
    from core.sop.report import results_section, uptake_frame

    res = _run(warehouse, _config(epochs=2, construct_epochs=1), agent_factory=_SopBlindAgent)
    assert len(res.toolset) >= 1, "its own trajectories hold the routines"
    uptake = uptake_frame(warehouse, res.run_id)
    assert list(uptake["evaluation"]) == ["epoch 1", "epoch 2", "test"]
    assert (uptake["with an SOP call"] == 0).all() and (uptake["episodes"] > 0).all()
    assert all(
        "contacts.lookup ×" in v and "sop." not in v for v in uptake["the agent's calls in the others"]
    )
    assert "Uptake: the evaluations with SOPs offered" in (results_section(warehouse) or "")


class _HopelessAgent(RoutineAgent):
    """Answers at once, calling nothing: no training task is ever solved."""

    def run(self, ctx):
        self._think(ctx)
        return "I cannot do that."


def test_a_run_whose_agent_solves_no_training_task_says_it_cannot_tell_toolsets_apart(warehouse) -> None:
    lines: list[str] = []
    hopeless = _config(epochs=1, construct_epochs=1, agent=AgentConfig(model="scripted/hopeless"))
    res = _run(warehouse, hopeless, agent_factory=_HopelessAgent, log=lines.append)
    assert res.epochs[0].ts == 0.0
    note = next(line for line in lines if "note:" in line)
    assert "solves none of the" in note and "training tasks" in note
    lines.clear()
    res = _run(warehouse, _config(epochs=1, construct_epochs=1), log=lines.append)
    assert 0.0 < res.epochs[0].ts < 1.0  # the routine agent sometimes succeeds: nothing to say
    assert not any("solves none" in line or "solves all" in line for line in lines)


def test_sops_come_from_training_tasks_only_and_the_test_split_is_touched_once(warehouse) -> None:
    res = _run(warehouse, _config())
    parts = dict(warehouse.rows("SELECT task_id, part FROM split_assignments"))
    audit = warehouse.rows("SELECT DISTINCT part FROM chisel_gt_access WHERE run_id = ?", [res.run_id])
    assert audit == [("opt",)], "ground truth read only from the optimization split, every read logged"
    for (sources,) in warehouse.rows("SELECT sources FROM sops"):
        for src in sources:
            task = (
                src.removeprefix("gold:")
                if src.startswith("gold:")
                else warehouse.scalar("SELECT task_id FROM episodes WHERE episode_id = ?", [src])
            )
            assert parts[task] == "opt", src
    kinds = warehouse.rows(
        """SELECT DISTINCT r.kind FROM episodes e JOIN run_episodes re USING (episode_id)
           JOIN runs r ON r.run_id = re.run_id WHERE e.split = 'test'"""
    )
    assert kinds == [("sop-test",)]
    test_tasks = {t for t, p in parts.items() if p == "test"}
    trained = {r[0] for r in warehouse.rows("SELECT DISTINCT task_id FROM episodes WHERE split = 'opt'")}
    assert not test_tasks & trained


def test_the_reviewer_prunes_an_sop_that_always_fails(warehouse) -> None:
    cons = _Plus({1: [BROKEN], 2: [BROKEN]})  # offered again after its pruning: it stays out
    res = _run(warehouse, _config(), engines=(cons, OfflineMerger(), EvidenceReviewer()))
    e1 = next(e for e in res.epochs if e.epoch == 1)
    assert BROKEN.sop_id in e1.evaluated and BROKEN.sop_id in e1.pruned
    reason = warehouse.scalar(
        "SELECT reason FROM sop_decisions WHERE run_id = ? AND sop_id = ? AND action = 'pruned'",
        [res.run_id, BROKEN.sop_id],
    )
    assert reason.startswith("error rate")
    labels = warehouse.rows("SELECT labels FROM sop_reviews WHERE sop_id = ?", [BROKEN.sop_id])
    assert labels and all(DEFECT in lab for (lab,) in labels)
    assert all(BROKEN.sop_id not in e.evaluated for e in res.epochs if e.epoch > 1)
    assert BROKEN.sop_id not in res.toolset.ids


def test_checkpoint_selection_picks_the_best_epoch(warehouse) -> None:
    def s(epoch, ts, n, rounds=2.0):
        return EpochSummary(epoch, f"t{epoch}", tuple(f"s{i}" for i in range(n)), (), ts, 0.0, rounds, 10)

    assert select_epoch([s(0, 0.9, 0), s(1, 0.5, 1), s(2, 0.7, 3), s(3, 0.6, 1)]).epoch == 2
    assert select_epoch([s(1, 0.7, 3), s(2, 0.7, 2), s(3, 0.7, 2, 1.5)]).epoch == 3, (
        "ties: fewer SOPs, rounds"
    )
    assert select_epoch([s(0, 0.3, 0)]) is None

    # a harmful SOP planted in epoch 2 and never pruned (no reviewer): epoch 2 is worse, epoch 1 is kept
    res = _run(
        warehouse,
        _config(variant="no-review"),
        engines=(_Plus({2: [BROKEN]}), OfflineMerger(), EvidenceReviewer()),
    )
    ts = {e.epoch: e.ts for e in res.epochs}
    assert ts[2] < ts[1] and res.best_epoch == 1
    assert BROKEN.sop_id not in res.toolset.ids
    assert all(not e.pruned for e in res.epochs), "without the reviewer nothing is pruned"


def test_the_one_shot_baseline_constructs_once_without_merge_or_review(warehouse) -> None:
    res = _run(warehouse, _config(variant="asi"))
    assert [e.epoch for e in res.epochs] == [0, 1]
    e1 = res.epochs[1]
    assert e1.added and not e1.merged and not e1.pruned
    assert sorted(e1.detail["batch"]) == sorted(
        t for (t,) in warehouse.rows("SELECT DISTINCT task_id FROM episodes WHERE split = 'opt'")
    ), "one batch: every training trajectory"


HOSTILE = {
    "loop": "def {n}(name, text):\n    while True:\n        pass\n",
    "memory": "def {n}(name, text):\n    data = []\n    while True:\n        data.append('x' * 1000000)\n",
    "socket": "import socket\ndef {n}(name, text):\n    return str(socket.socket())\n",
    "exit": "def {n}(name, text):\n    raise SystemExit(1)\n",
    "exception": "def {n}(name, text):\n    return tools.call('contacts.lookup', name=name)[10**9]\n",
}


class _CallEverySop:
    def __init__(self, config) -> None:
        self.config = config

    def run(self, ctx) -> str:
        from core.benchmarks.base import Call

        for doc in ctx.docs:
            if doc.tool.startswith("sop."):
                ctx.execute(Call(doc.tool, {"name": "Ann", "text": "x"}))
        return "done"


def test_each_hostile_sop_is_contained_and_labelled_an_implementation_defect(warehouse) -> None:
    bench = OfficeBench(4)
    toolset = Toolset(_sop(f"hostile_{k}", code.format(n=f"hostile_{k}")) for k, code in HOSTILE.items())
    evaluator = RunnerEvaluator(
        warehouse,
        SopBenchmark(bench, toolset, limits=replace(LIMITS, wall_s=2)),
        AGENT,
        agent_factory=tracing_factory(_CallEverySop),
        concurrency=1,
    )
    batch = evaluator.evaluate(toolset.docset(bench.original_docs()), bench.tasks()[:2], "opt")
    assert len(batch.traces) == 2 and not any(t.error_class for t in batch.traces), (
        "the episodes ran to the end"
    )
    invocations = invocations_of(warehouse, batch, toolset)
    assert len(invocations) == 2 * len(HOSTILE)
    by_tool = {s.tool: s for s in toolset}
    for inv in invocations:
        review = review_offline(
            inv, by_tool[inv.tool], writes=writes_check(bench), is_error=bench.is_error_output
        )
        assert review.labels == (DEFECT,), (inv.tool, inv.error)
    kinds = {inv.tool.removeprefix("sop.hostile_"): inv.defect[0] for inv in invocations}
    assert kinds.pop("loop") in ("cpu_time", "wall_time"), "whichever limit comes first on a loaded machine"
    assert kinds == {
        "memory": "memory",
        "socket": "exception",  # refused by the worker's import allow-list (validation refuses it earlier)
        "exit": "exit",
        "exception": "exception",
    }


def test_the_llm_engines_through_the_gateway(warehouse) -> None:
    from core.llm import script
    from core.sop.llm import LlmConstructor, LlmReviewer
    from core.sop.mining import Experience

    good = {
        "name": "find_and_send",
        "description": "Look a contact up, then send them a message (contacts.lookup, mail.send).",
        "parameters": [{"name": "name", "description": "Part of the name."}, {"name": "text"}],
        "returns": "What mail.send says.",
        "code": "def find_and_send(name, text):\n    out = tools.call('contacts.lookup', name=name)\n"
        "    cid = tools.pick(out, 'contact_id')\n    if cid is None:\n        return 'no contact'\n"
        "    return tools.call('mail.send', contact_id=cid, text=text)\n",
    }
    bad = {**good, "code": "import os\n" + good["code"]}

    def reply(messages):
        text = messages[-1]["content"]
        if "not valid" in text:
            return json.dumps(good)
        if "Pick segments" in messages[0]["content"]:
            return json.dumps({"segments": [[0, 1]]})
        if "Rewrite these" in messages[0]["content"]:
            return json.dumps(bad)
        return json.dumps({"labels": ["optimal"], "justification": "it sent the message"})

    model = script(reply, name="sop-llm")
    bench = OfficeBench(3)
    batch = RunnerEvaluator(warehouse, bench, AGENT, agent_factory=RoutineAgent).evaluate(
        bench.original_docs(), bench.tasks()[:1], "opt"
    )
    sops, rejected = LlmConstructor(model.model).construct(
        [Experience(batch.traces[0].task_id, batch.traces[0])],
        bench.original_docs(),
        Toolset(),
        run_id="r",
        epoch=1,
    )
    assert len(sops) == 1 and sops[0].origin == "llm" and sops[0].uses == ("contacts.lookup", "mail.send")
    retry = [r for r in model.requests if "not valid" in r["messages"][-1]["content"]]
    assert retry and "import of 'os' is not allowed" in retry[0]["messages"][-1]["content"]
    assert not rejected

    inv_bench = SopBenchmark(bench, Toolset(sops), limits=LIMITS)
    batch = RunnerEvaluator(
        warehouse, inv_bench, AGENT, agent_factory=tracing_factory(_CallEverySop)
    ).evaluate(Toolset(sops).docset(bench.original_docs()), bench.tasks()[:1], "opt")
    inv = invocations_of(warehouse, batch, Toolset(sops))[0]
    review = LlmReviewer(model.model).review(
        inv, sops[0], writes=writes_check(bench), is_error=bench.is_error_output, gold=None, run_id="r"
    )
    assert review.labels == ("optimal",) and review.engine == "llm"
    broken = script(["not json"] * 3, name="sop-llm-broken")
    fallback = LlmReviewer(broken.model).review(
        inv, sops[0], writes=writes_check(bench), is_error=bench.is_error_output, gold=None, run_id="r"
    )
    assert fallback.detail.get("fallback") and "never validated" in fallback.justification


@pytest.mark.parametrize("variant", ["no-merge"])
def test_a_finished_run_resumes_to_the_same_result_without_new_rows(warehouse, variant: str) -> None:
    first = _run(warehouse, _config(variant=variant))
    tables = ("sops", "sop_epochs", "sop_usage", "sop_reviews", "sop_decisions", "sop_results", "episodes")
    counts = {t: warehouse.scalar(f"SELECT count(*) FROM {t}") for t in tables}
    again = _run(warehouse, _config(variant=variant))
    assert again.run_id == first.run_id and again.toolset.toolset_id == first.toolset.toolset_id
    assert {t: warehouse.scalar(f"SELECT count(*) FROM {t}") for t in tables} == counts


def test_table1_and_the_results_section_render_stored_runs(warehouse) -> None:
    from core.reports import render_results
    from core.sop.report import table1

    bench = OfficeBench(18)
    for seed in (0, 1):
        for variant in ("asi", "full"):
            _run(warehouse, _config(variant=variant, seed=seed, epochs=2), bench=bench)
    t1 = table1(warehouse)
    assert list(t1["method"]) == ["atomic", "asi", "full"]
    assert set(t1["seeds"]) == {2}
    # a setting beyond the paper's is a method of its own; another protocol is a group of its own
    _run(warehouse, _config(variant="full", seed=0, epochs=2, offer="instead"), bench=bench)
    _run(warehouse, _config(variant="full", seed=0, epochs=3), bench=bench)
    t1 = table1(warehouse)
    two = t1[t1["protocol"].str.endswith("2 epochs")]
    assert list(two["method"]) == ["atomic", "asi", "full", "full (instead of the wrapped writes)"]
    assert list(two["seeds"]) == [2, 2, 2, 1]
    assert list(t1[t1["protocol"].str.endswith("3 epochs")]["method"]) == ["atomic", "full"]
    assert all("±" in v for v in two[two["seeds"] == 2]["test TS %"]), "mean ± standard error over the seeds"
    text = render_results(warehouse)
    assert "## EvoSOP" in text and "| atomic |" in text and "reasoning rounds per epoch" in text


def test_table1_pairs_each_method_with_the_atomic_agent_over_test_tasks_and_seeds(warehouse) -> None:
    from core.reports import render_results
    from core.study.sop_tests import paired_frame

    bench = OfficeBench(30)
    for seed in (0, 1):
        _run(warehouse, _config(variant="full", seed=seed, epochs=3), bench=bench)
    row = paired_frame(warehouse).iloc[0]
    # by hand: every (task, seed) pair of the two runs' test evaluations
    pairs = warehouse.query(
        """SELECT a.task_id, a.success::INT AS sop, b.success::INT AS atomic, a.n_steps - b.n_steps AS rounds
           FROM sop_results x
           JOIN (SELECT r.run_id, e.* FROM run_episodes r JOIN episodes e USING (episode_id)) a
             ON a.run_id = x.test_run
           JOIN (SELECT r.run_id, e.* FROM run_episodes r JOIN episodes e USING (episode_id)) b
             ON b.run_id = x.base_test_run AND b.task_id = a.task_id"""
    )
    per_task = pairs.assign(d=pairs["sop"] - pairs["atomic"]).groupby("task_id")[["d", "rounds"]].mean()
    only_sop = int(((pairs["sop"] == 1) & (pairs["atomic"] == 0)).sum())
    only_atomic = int(((pairs["sop"] == 0) & (pairs["atomic"] == 1)).sum())
    assert only_sop > only_atomic, "the SOPs raise success (see the first test)"
    assert row["method"] == "full" and row["seeds"] == 2 and row["paired tasks"] == len(per_task)
    assert row["Δ test TS pp [95 % CI]"].startswith(f"{100 * per_task['d'].mean():+.1f} [")
    assert row["McNemar (only method / only atomic), p"].startswith(f"{only_sop} / {only_atomic},")
    assert row["Δ rounds per task [95 % CI]"].startswith(f"{per_task['rounds'].mean():+.2f} [")
    assert "McNemar test on the pairs" in render_results(warehouse)


def test_table1_comes_back_from_the_run_archive_in_a_fresh_warehouse(warehouse, tmp_path) -> None:
    from core.sop.report import table1
    from core.study.sop_tests import paired_frame
    from core.warehouse import Warehouse
    from core.warehouse.archive import archive_runs, restore_runs

    for seed in (0, 1):
        _run(warehouse, _config(variant="full", seed=seed, epochs=2), bench=OfficeBench(18))
    archive_runs(warehouse, tmp_path / "runs")
    fresh = Warehouse(tmp_path / "fresh.duckdb")
    assert restore_runs(tmp_path / "runs", fresh)["sop_results"] == 2
    assert table1(fresh).equals(table1(warehouse))
    assert paired_frame(fresh).equals(paired_frame(warehouse))


def test_a_finished_runs_epochs_and_sop_lifetimes_come_back_from_the_run_archive(warehouse, tmp_path) -> None:
    """The per-epoch and lifetime tables of RESULTS.md survive a fresh checkout; the SOPs (generated code)
    and an unfinished run's epochs do not travel, and a restored run never resumes on SOPs it lacks."""
    from core.sop.report import epochs_frame, lifecycle_frame, lifetimes_table
    from core.sop.store import epoch_rows, load_state
    from core.warehouse import Warehouse
    from core.warehouse.archive import archive_runs, restore_runs

    cons = _Plus({1: [BROKEN]})
    res = _run(
        warehouse,
        _config(epochs=2),
        bench=OfficeBench(18),
        engines=(cons, OfflineMerger(), EvidenceReviewer()),
    )
    warehouse.record(
        epoch_rows("unfinished", EpochSummary(0, "t0", (), (), 0.5, 0.5, 2.0, 10), [], {}, [], [])
    )
    archive_runs(warehouse, tmp_path / "runs")
    fresh = Warehouse(tmp_path / "fresh.duckdb")
    restore_runs(tmp_path / "runs", fresh)

    assert epochs_frame(fresh, res.run_id).equals(epochs_frame(warehouse, res.run_id))
    life = lifetimes_table(lifecycle_frame(fresh, res.run_id))
    assert life.equals(lifetimes_table(lifecycle_frame(warehouse, res.run_id)))
    broken = life[(life["name"] == BROKEN.name) & (life["origin"] == "manual")]
    assert len(broken) == 1 and broken["e1"].iloc[0].endswith("✗"), "the pruned SOP keeps its name and cross"
    assert fresh.scalar("SELECT count(*) FROM sops") == 0
    assert (
        fresh.scalar("SELECT count(*) FROM sop_decisions WHERE reason IS NOT NULL OR detail IS NOT NULL") == 0
    )
    assert fresh.scalar("SELECT count(*) FROM sop_epochs WHERE run_id = 'unfinished'") == 0
    # resuming: every epoch of the original warehouse, only the atomic epoch 0 of the restored one
    assert [e.epoch for e in load_state(warehouse, res.run_id).epochs] == [0, 1, 2]
    assert [e.epoch for e in load_state(fresh, res.run_id).epochs] == [0]


class _NoLookupAgent(RoutineAgent):
    """Weaker than RoutineAgent: with atomic tools it never looks anything up (it writes the name it was
    given as the id, so it never succeeds and its trajectories hold no routine); offered a fitting SOP,
    it calls it like RoutineAgent does."""

    def run(self, ctx):
        if any(d.tool.startswith("sop.") for d in ctx.docs):
            return super().run(ctx)
        m = dict(ctx.task.meta)
        self._think(ctx)
        if m["kind"] == "send":
            ctx.execute(Call("mail.send", {"contact_id": m["name"], "text": m["text"]}))
        elif m["kind"] == "delete":
            ctx.execute(Call("events.delete", {"event_id": m["query"]}))
        else:
            ctx.execute(Call("events.rename", {"event_id": m["query"], "title": m["title"]}))
        self._think(ctx)
        return "done"


def _weak_or_explorer(config: AgentConfig):
    return RoutineAgent(config) if config.model == "scripted/explorer" else _NoLookupAgent(config)


def test_an_explorer_agents_trajectories_teach_routines_the_target_agent_never_shows(warehouse) -> None:
    """A target agent that never looks up gives the miner nothing; a stronger explorer's training
    trajectories do, and the target agent then succeeds through the SOPs built from them."""
    plain = _config(test=False)
    alone = _run(warehouse, plain, agent_factory=_weak_or_explorer)
    assert not any(e.added for e in alone.epochs) and alone.epochs[0].ts == 0.0
    failed_to_run = warehouse.scalar(
        """SELECT count(*) FROM episodes e JOIN run_episodes re USING (episode_id)
           WHERE re.run_id = ? AND (e.error IS NOT NULL OR e.n_steps = 0)""",
        [alone.epochs[0].eval_run],
    )
    assert failed_to_run == 0  # the weak agent did act: it just never looked anything up

    explored_cfg = replace(plain, explorer=replace(AGENT, model="scripted/explorer"))
    assert "explorer" not in plain.key("office") and explored_cfg.key("office")["explorer"]["model"] == (
        "scripted/explorer"
    )
    res = _run(warehouse, explored_cfg, agent_factory=_weak_or_explorer)
    assert res.run_id != alone.run_id
    best = next(e for e in res.epochs if e.epoch == res.best_epoch)
    assert len(res.toolset) >= 1 and best.ts > res.epochs[0].ts == 0.0
    # the explorer ran the training tasks only, as its own stored run
    splits = warehouse.rows(
        """SELECT DISTINCT e.split, e.model FROM episodes e JOIN run_episodes re USING (episode_id)
           JOIN runs r ON r.run_id = re.run_id WHERE r.kind = 'sop-explore' AND r.parent_run = ?""",
        [res.run_id],
    )
    assert splits == [("opt", "scripted/explorer")]
