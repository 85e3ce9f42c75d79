"""Job progress: producers report phases through their hooks; cards show done/total, phase, elapsed and
time left; the live refresh backs off when drawing is slower than its interval."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from core import jobs
from core.agents.base import AgentConfig
from core.chisel.config import OptimizeConfig
from core.chisel.loop import Optimizer
from core.llm import script
from core.sample import SampleShop, doc_reader
from core.study.fields import StudySpec, run_study
from core.ui.live import next_interval
from core.ui.views.jobs import duration, progress_text
from core.warehouse.rows import JobEventRow, JobRow


def test_refresh_backs_off_when_a_draw_is_slower_than_its_interval() -> None:
    assert next_interval(2.0, 0.3) == 2.0
    assert next_interval(2.0, 3.0) == 6.0  # at least twice the draw time
    assert next_interval(2.0, 2.5) == 5.0
    assert next_interval(16.0, 20.0) == 30.0  # capped
    assert next_interval(8.0, 0.1) == 4.0  # fast again: halves back, never below the base
    assert next_interval(2.0, 0.01) == 2.0


def _log(warehouse, job_id: str, rows: list[tuple[int, str, int | None, int | None, str]]) -> None:
    t0 = datetime(2026, 1, 1, 12, 0, 0)
    warehouse.record([JobRow(job_id=job_id, kind="eval", params={"argv": []}, pid=None)])
    warehouse.record(
        [
            JobEventRow(job_id=job_id, status=s, done=d, total=t, message=m, ts=t0 + timedelta(seconds=sec))
            for sec, s, d, t, m in rows
        ]
    )


def test_a_card_says_what_runs_how_long_it_took_and_how_long_is_left(warehouse) -> None:
    _log(
        warehouse,
        "j1",
        [
            (0, "queued", None, None, "queued"),
            (1, "running", None, None, "started"),
            (31, "running", 0, 10, "starting"),  # start-up (loading a model) is not counted in the rate
            (51, "running", 2, 10, "optimizing shop.order: iteration 1 of 2"),
        ],
    )
    j = jobs.job_state(warehouse, "j1")
    assert j.phase == "optimizing shop.order: iteration 1 of 2"
    assert j.eta_s() == pytest.approx(80.0)  # 2 steps in 20 s, 8 left
    text = progress_text(j, at=datetime(2026, 1, 1, 12, 1, 1))
    assert (
        text
        == "2 / 10 · optimizing shop.order: iteration 1 of 2 · 1 min 00 s elapsed · about 1 min 20 s left"
    )
    _log(warehouse, "j2", [(0, "queued", None, None, "queued"), (1, "running", None, None, "started")])
    j2 = jobs.job_state(warehouse, "j2")
    assert j2.eta_s() is None and "estimating time left" in progress_text(j2)
    assert duration(None) == "–" and duration(3725) == "1 h 02 min"


@pytest.fixture
def reader():
    return script(doc_reader, name="progress-reader")


def test_optimize_reports_profiling_tools_and_iterations_before_a_tool_ends(warehouse, reader) -> None:
    heard: list[tuple[int, int, str]] = []
    config = OptimizeConfig(
        benchmark="sample-shop",
        tools=("shop.order",),
        agent=AgentConfig(model=reader.model, max_steps=2),
        iterations=1,
        engine="evidence",
    )
    Optimizer(warehouse, config, benchmark=SampleShop(), progress=lambda *a: heard.append(a)).run()
    messages = [m for _, _, m in heard]
    assert messages[0].startswith("profiling shop")
    assert "optimizing shop.order" in messages
    assert any(m.startswith("optimizing shop.order: iteration 1 of 1") for m in messages)
    assert heard[-1][:2] == (1, 1)


def test_a_study_reports_k_of_n_variant_runs(warehouse, reader) -> None:
    heard: list[tuple[int, int, str]] = []
    spec = StudySpec(
        benchmark="sample-shop", domain="shop", model=reader.model, repeats=1, limit=2, max_steps=2,
        fields=("FD", "IPD"),
    )  # fmt: skip
    run_study(warehouse, spec, bench=SampleShop(), steps=lambda *a: heard.append(a))
    total = heard[0][1]
    assert total == 3  # the original docs and two variants, one repeat
    assert heard[0] == (0, 3, "repeat 1 of 1: original")
    assert heard[-1] == (3, 3, "repeat 1 of 1: IPD done")
    assert [d for d, _, _ in heard] == sorted(d for d, _, _ in heard)
