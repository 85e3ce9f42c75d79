"""Field-impact study: variants, supplements from disjoint evidence, paired ΔTS, resume."""

from __future__ import annotations

import json

import pytest

from core.benchmarks.base import Call
from core.docs import Param, ToolDoc
from core.fields import CODES
from core.study.evidence import Evidence, ParamMeta, ToolMeta, collect_evidence
from core.study.fields import StudySpec, latest_impacts, prepare, run_study
from core.study.supplement import shape, supplement


class DocSensitiveAgent:
    """Makes the gold call only when the gold tool's doc has a description (FD) and a name (TN)."""

    runs = 0

    def __init__(self, config) -> None:
        self.config = config

    def run(self, ctx) -> str:
        DocSensitiveAgent.runs += 1
        for call in ctx.task.gold:
            doc = next((d for d in ctx.docs if d.tool == call.tool), None)
            if doc is not None and doc.has("FD") and doc.has("TN"):
                ctx.execute(call)
        return "done"


@pytest.fixture(scope="module")
def bench(data_dir):
    from core.benchmarks.registry import get_benchmark

    return get_benchmark("api-bank", data_dir)


def test_spec_requires_disjoint_parts():
    with pytest.raises(ValueError):
        StudySpec(measure_part="test", evidence_part="test")
    assert StudySpec().study_id != StudySpec(domain="email").study_id
    assert StudySpec(seed=3).config(2).seed == 5


def test_variants_remove_present_and_add_absent(warehouse, bench):
    ctx = prepare(warehouse, StudySpec(benchmark="api-bank", domain="finance", limit=4), bench=bench)
    measured = {t.task_id for t in ctx.measured}
    assert measured.isdisjoint(t.task_id for t in ctx.evidence_tasks)
    by_field = {v.field: v for v in ctx.variants}
    assert list(by_field) == list(CODES)
    assert by_field["FD"].operation == "remove" and by_field["TD"].operation == "add"
    assert by_field["DPV"].operation == "n/a" and by_field["DPV"].docset is None
    for v in ctx.variants:
        if v.docset is None:
            continue
        for tool in ctx.tools:
            before, after = ctx.original[tool], v.docset[tool]
            changed = [c for c in CODES if before.get(c) != after.get(c)]
            # only the studied field changes (IPN removal takes the per-parameter fields with it)
            allowed = {v.field} | ({"IPD", "IPT", "PRF", "POF", "DPV"} if v.field == "IPN" else set())
            assert set(changed) <= allowed, (v.field, tool, changed)
        assert all(v.docset[t].has(v.field) == (v.operation == "add") for t in v.tools)
    ue = by_field["UE"].docset["GetUserToken"].examples
    assert ue and ue[0].startswith(">>> GetUserToken(")
    assert by_field["TD"].docset["QueryBalance"].domain == "Finance management"


def test_supplements_from_crafted_evidence():
    doc = ToolDoc(
        tool="cal.add",
        name="cal.add",
        description="Adds an event.",
        parameters=(Param(name="start"), Param(name="n")),
    )
    meta = ToolMeta(
        "cal.add", "calendar", (ParamMeta("start"), ParamMeta("n")), source='def add():\n    """Add it."""'
    )
    ev = Evidence()
    c1, c2 = (
        Call("cal.add", {"start": "2023-11-01 09:00:00", "n": 2}),
        Call("cal.add", {"start": "2023-11-02 10:00:00"}),
    )
    ev.calls["cal.add"] += [c1, c2]
    ev.outputs["cal.add"] += [(c1, "{'id': '001', 'n': 2}", True), (c2, "{'id': '002', 'n': 1}", True)]
    ev.probe_errors["cal.add"] = "Start not provided."
    assert supplement(doc, "PRF", meta, ev).param("n").required is False
    assert supplement(doc, "PRF", meta, ev).param("start").required is True
    assert supplement(doc, "IPT", meta, ev).param("n").type == "int"
    assert supplement(doc, "RT", meta, ev).response_template == '{"id": "<str>", "n": "<int>"}'
    ic = supplement(doc, "IC", meta, ev).constraints
    assert (
        "Requires start." in ic
        and 'start must be "YYYY-MM-DD HH:MM:SS"' in ic
        and "Start not provided." in ic
    )
    assert supplement(doc, "TD", meta, ev).domain == "Calendar management"
    assert supplement(doc, "FD", meta, Evidence()) is None  # present: add is refused by the study, not faked
    assert shape([{"a": 1.5}]) == [{"a": "<float>"}, "..."]


def test_evidence_executes_gold_calls(bench):
    tasks = [t for t in bench.tasks() if t.domain == "finance"][:6]
    ev = collect_evidence(bench, tasks, bench.tools_for(tasks[0]))
    assert sum(len(v) for v in ev.outputs.values()) >= 1
    assert "GetUserToken" in ev.probe_errors


def test_run_study_paired_deltas_and_resume(warehouse, bench):
    spec = StudySpec(
        benchmark="api-bank",
        domain="finance",
        limit=3,
        repeats=2,
        model="scripted/none",
        fields=("TN", "FD", "TD", "DPV"),
    )
    rows = run_study(warehouse, spec, bench=bench, agent_factory=DocSensitiveAgent)
    got = {r.field: r for r in rows.itertuples()}
    assert got["FD"].operation == "remove" and got["FD"].delta_pp == pytest.approx(-100 * got["FD"].base_ts)
    assert got["TD"].delta_pp == 0 and got["TD"].ci_low == 0
    assert got["DPV"].operation == "n/a" and got["DPV"].repeats == 0
    assert got["FD"].base_ts > 0 and got["FD"].repeats == 2
    stored = latest_impacts(warehouse, spec.study_id)
    assert len(stored) == 4 and set(stored["repeats"]) == {0, 2}
    detail = json.loads(stored.set_index("field").loc["FD", "detail"])
    assert len(detail["base_ts"]) == 2 and detail["n_tasks"] == 3
    before = DocSensitiveAgent.runs
    again = run_study(warehouse, spec, bench=bench, agent_factory=DocSensitiveAgent)
    assert DocSensitiveAgent.runs == before  # resumed: every episode reused, none re-run
    assert list(again["delta_pp"].fillna(0)) == list(rows["delta_pp"].fillna(0))


def test_cli_show(warehouse, bench, tmp_path):
    from click.testing import CliRunner

    from core.cli.study import command

    spec = StudySpec(
        benchmark="api-bank", domain="finance", limit=2, repeats=1, model="scripted/none", fields=("FD",)
    )
    run_study(warehouse, spec, bench=bench, agent_factory=DocSensitiveAgent)
    out = CliRunner().invoke(command, ["show", "--warehouse", str(warehouse.path), "--format", "markdown"])
    assert out.exit_code == 0, out.output
    assert "| FD | remove |" in out.output


def test_results_show_the_largest_study_per_cell(warehouse, bench):
    """A cell measured again on more tasks shows the larger study; the smaller one is named, not lost."""
    from core.reports.sections import field_impact
    from core.study.report import current_studies

    small = StudySpec(
        benchmark="api-bank", domain="finance", limit=2, repeats=1, model="scripted/none", fields=("FD",)
    )
    large = StudySpec(
        benchmark="api-bank", domain="finance", limit=3, repeats=2, model="scripted/none", fields=("FD",)
    )
    for spec in (large, small):  # the smaller one is written last: size, not age, decides
        run_study(warehouse, spec, bench=bench, agent_factory=DocSensitiveAgent)
    shown, older = current_studies(latest_impacts(warehouse))
    assert [g["study_id"].iloc[0] for g in shown] == [large.study_id] and older == [small.study_id]
    text = field_impact(warehouse)
    assert "3 tasks" in text and f"`{small.study_id}`" in text


def test_backbones_side_by_side_mark_fields_whose_effect_flips():
    import pandas as pd

    from core.study.report import backbone_frames

    def row(model, field, op, d, lo, hi):
        return {
            "benchmark": "b",
            "domain": "d",
            "paradigm": "react",
            "model": model,
            "field": field,
            "operation": op,
            "delta_pp": d,
            "ci_low": lo,
            "ci_high": hi,
        }

    a = pd.DataFrame([row("m1", "PRF", "add", 20.0, 10.0, 30.0), row("m1", "UE", "add", 5.0, -1.0, 11.0)])
    b = pd.DataFrame([row("m2", "PRF", "add", -15.0, -25.0, -5.0), row("m2", "UE", "add", -3.0, -9.0, 2.0)])
    ((name, frame),) = backbone_frames([a, b])
    assert name == "b/d · react" and list(frame.columns) == ["field", "m1", "m2", "flip"]
    flips = dict(zip(frame["field"], frame["flip"], strict=True))
    assert flips == {"PRF": "flips", "UE": "opposite, n.s."}
    assert frame.loc[frame["field"] == "PRF", "m1"].item() == "+ +20.0 [+10.0, +30.0]"
    assert backbone_frames([a]) == []  # one backbone: nothing to put side by side


def test_explanation_names_moved_tasks_their_failures_and_the_detectable_effect(warehouse, bench, tmp_path):
    """The 'why' behind a row: which tasks a variant moved, what failed instead, and the MDE."""
    from click.testing import CliRunner

    from core.cli.study import command
    from core.reports.sections import field_moves
    from core.study.moves import explain, markdown
    from core.study.stats import minimum_detectable_effect
    from core.tables import markdown_table

    spec = StudySpec(
        benchmark="api-bank", domain="finance", limit=3, repeats=2, model="scripted/none", fields=("FD", "TD")
    )
    rows = run_study(warehouse, spec, bench=bench, agent_factory=DocSensitiveAgent)
    solved = rows.set_index("field").loc["FD", "base_ts"]
    assert solved > 0
    e = explain(warehouse, latest_impacts(warehouse, spec.study_id))
    assert e.n_tasks == 3 and e.variants == 2
    moved = e.moved
    # removing FD makes the agent skip its calls: every task it solved moves down in both repeats
    assert set(moved["field"]) == {"−FD"} and (moved["Δ"] == -1.0).all()
    assert len(moved) == round(3 * solved) and (moved["original"] == "2/2").all()
    assert (moved["variant"] == "0/2").all() and moved["variant failure"].str.contains(r"\(2×\)").all()
    assert moved["original failure"].eq("").all()
    # TD moves nothing; tasks solved under every doc set would have to survive FD's removal: none do
    assert e.always == []
    assert e.worst_mde_pp == pytest.approx(100 * minimum_detectable_effect(n=3, sd=1.0))
    text = markdown(e, markdown_table)
    assert "Minimum detectable effect" in text and "| −FD |" in text
    assert "Minimum detectable effect" in field_moves(warehouse)
    out = CliRunner().invoke(command, ["show", "--warehouse", str(warehouse.path), "--why"])
    assert out.exit_code == 0, out.output
    assert "| −FD |" in out.output


def test_detectable_effect_text_needs_varying_differences():
    """With no spread in the per-task differences only the worst case bounds the effect, never ±0."""
    import math

    import pandas as pd

    from core.study.moves import Explanation, detectable_text, pinned_text

    flat = Explanation("s", 12, pd.DataFrame(), never=["a"], worst_mde_pp=80.9)
    assert "±80.9 pp if every pair were discordant" in detectable_text(flat)
    assert "spread" not in detectable_text(flat) and math.isnan(flat.mde_pp)
    assert pinned_text(flat) == "Tasks no variant moves, of 12: 1 never solved."
    measured = Explanation(
        "s", 12, pd.DataFrame(), mde_pp=17.4, worst_mde_pp=80.9, pooled_sd=0.22, variants=16
    )
    assert detectable_text(measured).count(
        "±"
    ) == 2 and "SD 0.22, pooled over 16 variants" in detectable_text(measured)
    assert pinned_text(measured) == ""


def test_a_task_most_variants_move_the_same_way_is_named_as_baseline_noise():
    import pandas as pd

    from core.study.moves import Explanation, shared_text

    e = Explanation("s", 12, pd.DataFrame(), shared={"t-1": (-1, 9, 16)})
    assert shared_text(e).startswith(
        "Moved the same way under at least half of the variants: t-1 (down under 9 of 16)."
    )
    assert shared_text(Explanation("s", 12, pd.DataFrame())) == ""


def test_explain_finds_tasks_that_half_the_variants_move_the_same_way(warehouse, bench):
    from core.study.moves import explain

    spec = StudySpec(
        benchmark="api-bank",
        domain="finance",
        limit=3,
        repeats=1,
        model="scripted/none",
        fields=("TN", "FD", "TD", "RPD"),
    )
    run_study(warehouse, spec, bench=bench, agent_factory=DocSensitiveAgent)
    e = explain(warehouse, latest_impacts(warehouse, spec.study_id))
    down = set(e.moved["task"])
    assert down and set(e.moved["field"]) == {"−TN", "−FD"}  # the agent needs both; TD and RPD move nothing
    assert e.shared == {t: (-1, 2, 4) for t in down}


def test_a_restored_study_explains_itself_in_a_fresh_warehouse(warehouse, bench, tmp_path):
    """The run archive carries the study's rows with its runs: a fresh checkout explains the same moves."""
    from core.reports.sections import field_moves
    from core.study.moves import explain
    from core.warehouse import Warehouse
    from core.warehouse.archive import archive_runs, restore_runs

    spec = StudySpec(
        benchmark="api-bank", domain="finance", limit=3, repeats=2, model="scripted/none", fields=("FD", "TD")
    )
    run_study(warehouse, spec, bench=bench, agent_factory=DocSensitiveAgent)
    folder = tmp_path / "runs"
    archive_runs(warehouse, folder)
    fresh = Warehouse(tmp_path / "fresh.duckdb")
    added = restore_runs(folder, fresh)
    assert added["field_impact"] == warehouse.scalar("SELECT count(*) FROM field_impact") > 0
    assert restore_runs(folder, fresh)["field_impact"] == 0  # restoring twice adds nothing
    here, there = (explain(w, latest_impacts(w, spec.study_id)) for w in (warehouse, fresh))
    assert there.n_tasks == here.n_tasks == 3
    assert there.moved.to_dict("records") == here.moved.to_dict("records") and not there.moved.empty
    assert "| −FD |" in field_moves(fresh)
