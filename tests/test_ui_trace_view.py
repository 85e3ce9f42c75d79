"""The trace view reads right: no error on a successful call, an unreadable call is not a final answer,
identical calls are folded, the table marks the open trace after Next, coming back keeps the trace, and
a step timeline shows latency and tokens per step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.agents.base import AgentConfig
from core.llm import Gateway, script, tool_call, using
from core.runner import RunPlan, run
from core.sample import SampleShop, seeded_copy
from core.ui import timeline as tl
from core.ui.testing import open_app, problems, show
from core.warehouse import Warehouse

LOOPS = 20


def _looping(messages: list[dict[str, Any]], params: dict[str, Any]) -> Any:
    """Asks for the same quote LOOPS times, then writes a call the agent cannot read."""
    name = next(t["function"]["name"] for t in params["tools"] if "quote" in t["function"]["name"])
    if sum(m.get("role") == "tool" for m in messages) < LOOPS:
        return tool_call(name, item="apple")
    return 'Action: shop.order\nAction Input: {"item": "apple", "qty": '


@pytest.fixture(scope="module")
def looped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    path = tmp_path_factory.mktemp("traceview") / "wh.duckdb"
    seeded_copy(path)
    wh = Warehouse(path)
    bench = SampleShop()
    task = next(t for t in bench.tasks() if "stock price" in t.query or "how much" in t.query.lower())
    with using(Gateway.for_warehouse(wh)):
        model = script(_looping, name="looping-model")
        plan = RunPlan(
            bench, bench.original_docs(), AgentConfig(model=model.model, max_steps=LOOPS + 3), [task]
        )
        run_id = run(wh, plan).run_id
    episode = wh.rows("SELECT episode_id FROM run_episodes WHERE run_id = ?", [run_id])[0][0]
    return path, episode


def test_timeline_collapse_and_unparsed_actions_as_pure_functions() -> None:
    call = {
        "kind": "tool_call",
        "tool": "t",
        "args": {"a": 1},
        "output": "ok",
        "error": None,
        "latency_s": 0.5,
    }
    model = {"kind": "model_call", "tokens_in": 100, "tokens_out": 7, "latency_s": 1.5, "cache_hit": False}
    events = [model, call, model, dict(call), model, {**call, "args": {"a": 2}}]
    steps = tl.collapse(events, show_model_calls=False)
    assert [s.repeats for s in steps] == [2, 1]
    assert len(tl.collapse(events, show_model_calls=True)) == 6  # shown model calls separate the calls
    rows = tl.timeline([*events, {"kind": "final_answer", "text": '{"name": "t", "arguments": {}}'}])
    assert list(rows["step"])[:2] == ["model call", "tool call t"]
    assert list(rows["start_s"])[:3] == [0.0, 1.5, 2.0] and rows["tokens_in"].iloc[0] == 100
    assert rows["step"].iloc[-1] == "unparsed action" and set(rows["result"]) == {"ok"}
    assert tl.looks_like_action("Action: search\nAction Input: {") and not tl.looks_like_action(
        "It is 9.5 €."
    )
    assert tl.missing(float("nan")) and tl.missing(None) and not tl.missing("x")


def test_a_looping_trace_reads_right(looped: tuple[Path, str]) -> None:
    path, episode = looped
    at = show(open_app(path), "traces", episode=episode)
    assert not problems(at)
    text = " ".join(m.value for m in at.markdown)
    assert "nan" not in text and "**Error**" not in text  # every quote call succeeded
    assert f"× {LOOPS} identical calls" in text
    assert "Unparsed action" in text and "Final answer" not in text
    assert any(m.label == "Failure class" and m.value != "–" for m in at.metric)
    assert any(e.label.startswith("Step timeline") for e in at.expander)
    shown = at.dataframe[0].value if episode in set(at.dataframe[0].value.get("episode_id", [])) else None
    assert shown is None or shown.set_index("episode_id").loc[episode, "open"] == "▶"
    # the timeline's grid is drawn only once its expander is opened
    grids = len(at.dataframe)
    at.session_state["tr_timeline"] = True
    at.run()
    assert not problems(at) and len(at.dataframe) == grids + 1
    timeline = at.dataframe[-1].value
    assert {"latency_s", "tokens_in", "tokens_out"} <= set(timeline.columns)


def test_after_next_the_table_marks_the_open_trace_and_coming_back_keeps_it(looped: tuple[Path, str]) -> None:
    path, _ = looped
    at = show(open_app(path), "traces")
    at.button(key="next_trace").click().run()
    assert not problems(at)
    opened = at.query_params["episode"]
    table = at.dataframe[0]
    marks = list(table.value["open"])
    assert marks.count("▶") == 1 and marks.index("▶") == 1  # the second row: the one Next opened
    at = show(at, "overview")
    at = show(at, "traces")
    assert at.query_params["episode"] == opened
    assert list(at.dataframe[0].value["open"]).index("▶") == 1


def test_the_table_fits_with_fewer_default_columns_and_a_picker(looped: tuple[Path, str]) -> None:
    import pandas as pd

    from core.ui.components import dashes
    from core.ui.views.traces import DEFAULT_COLUMNS

    path, _ = looped
    at = show(open_app(path), "traces")
    assert len(DEFAULT_COLUMNS) <= 6
    assert at.multiselect(key="tr_columns").value == DEFAULT_COLUMNS
    at.multiselect(key="tr_columns").set_value([*DEFAULT_COLUMNS, "latency_s"]).run()
    assert not problems(at)
    assert list(dashes(pd.DataFrame({"a": [None, "x", float("nan")]}))["a"]) == ["–", "x", "–"]


def test_calls_and_observations_are_shown_as_escaped_preformatted_text(looped: tuple[Path, str]) -> None:
    path, episode = looped
    at = show(open_app(path), "traces", episode=episode)
    blocks = [h.proto.body for h in at.get("html") if 'class="dc-mono"' in h.proto.body]
    calls = [b for b in blocks if "quote(item=&quot;apple&quot;)" in b]
    assert calls, "the call, its quotes escaped"
    assert not any("<script" in b for b in blocks)
    observations = [b for b in blocks if "price" in b]
    assert observations and all("&#x27;item&#x27;: &#x27;apple&#x27;" in b for b in observations), "escaped"
