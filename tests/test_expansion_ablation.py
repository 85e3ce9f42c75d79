"""Retrieval evaluation of expanded docs with the add-one / one-out ablation, its storage and report."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from core.docs import DocSet, ToolDoc
from core.expansion import PROFILE_FIELDS, ToolProfile
from core.expansion.experiment import ablation_docsets, retrieval_eval
from core.llm import script
from tests.test_retrieval_retrievers import fake_embed

DOCS = [
    ToolDoc(tool="SendMail", name="SendMail", description="Sends a message to an address."),
    ToolDoc(tool="AddMeeting", name="AddMeeting", description="Adds an entry to the agenda at a time."),
    ToolDoc(tool="QueryStock", name="QueryStock", description="Returns the stock price of a stock code."),
]
PROFILES = {
    "SendMail": {
        "function_description": "Sends a message to an address.",
        "tags": ["message", "address", "sends"],
        "when_to_use": "When a message for an address must go out.",
    },
    "AddMeeting": {
        "function_description": "Adds an entry to the agenda.",
        "tags": ["agenda", "entry", "time"],
    },
    "QueryStock": {"function_description": "Returns the stock price.", "tags": ["stock", "price", "code"]},
}
TASKS = [
    SimpleNamespace(task_id="1", query="send a message to bob's address", tools=("SendMail",), domain="d"),
    SimpleNamespace(task_id="2", query="put an entry in my agenda", tools=("AddMeeting",), domain="d"),
    SimpleNamespace(
        task_id="3", query="stock price of AAPL and mail it", tools=("QueryStock", "SendMail"), domain="d"
    ),
]


def toy_bench() -> SimpleNamespace:
    return SimpleNamespace(
        name="toy", original_docs=lambda: DocSet(DOCS, name="original"), tasks=lambda: TASKS
    )


def test_ablation_docsets_add_one_and_one_out() -> None:
    original = DocSet(DOCS)
    profiles = {
        t: ToolProfile(**{k: tuple(v) if isinstance(v, list) else v for k, v in p.items()})
        for t, p in PROFILES.items()
    }
    variants = ablation_docsets(original, profiles)
    assert set(variants) == {"expanded"} | {f"{p}:{f}" for f in PROFILE_FIELDS for p in ("add", "out")}
    assert (
        variants["add:when_to_use"]["SendMail"].guidance
        and not variants["add:when_to_use"]["SendMail"].domain
    )
    assert variants["add:when_to_use"]["AddMeeting"] == original["AddMeeting"]
    assert variants["out:tags"]["QueryStock"].domain is None
    assert variants["out:tags"]["QueryStock"].description.endswith("Returns the stock price.")
    assert variants["add:example_usage"].docset_id == original.docset_id  # no tool has that field
    assert variants["out:example_usage"].docset_id == variants["expanded"].docset_id


def test_retrieval_eval_with_ablation_is_stored_and_reported(warehouse) -> None:
    from core.expansion.report import toolrex
    from core.expansion.run import run_expansion

    model = script(
        lambda messages: json.dumps(next(p for t, p in PROFILES.items() if t in messages[-1]["content"]))
    )
    bench = toy_bench()
    summary = run_expansion(warehouse, bench, model=model.model, judge_model=None)
    assert summary["accepted"] == 7, summary
    out = retrieval_eval(
        warehouse,
        bench,
        docs="expanded",
        retrievers=("bm25", "dense"),
        ks=(1, 2),
        ablation=True,
        embed_fn=fake_embed,
    )
    n_variants = 2 + 2 * len(PROFILE_FIELDS)
    assert len(out["rows"]) == n_variants * 2 * 2  # variants x retrievers x ks
    stored = warehouse.query("SELECT * FROM retrieval_metrics WHERE run_id = ?", [out["run_id"]])
    assert len(stored) == n_variants * 4
    assert set(stored.n_queries) == {3}
    orig = stored[(stored.variant == "original") & (stored.retriever == "bm25") & (stored.k == 2)].iloc[0]
    assert 0 < orig.ndcg <= 1
    rankings = warehouse.query("SELECT * FROM retrieval_rankings WHERE run_id = ?", [out["run_id"]])
    assert len(rankings) == n_variants * 2 * 3 and all(len(r) == 2 for r in rankings.ranking)
    # the ablation doc sets are registered and can be evaluated by the agent
    origins = set(warehouse.query("SELECT origin FROM doc_sets").origin)
    assert {"original", "toolrex", "toolrex-ablation"} <= origins
    # resuming skips what is stored
    again = retrieval_eval(warehouse, bench, docs="expanded", retrievers=("bm25",), ks=(1, 2), ablation=True)
    assert again["rows"] == [] or again["run_id"] != out["run_id"]
    # the results section renders the tables
    text = toolrex(warehouse)
    assert "Field ablation at k=2" in text and "when_to_use (UG)" in text and "Judge outcome" in text


def test_ablation_needs_an_expanded_doc_set(warehouse) -> None:
    with pytest.raises(ValueError, match="ablation"):
        retrieval_eval(warehouse, toy_bench(), docs="original", retrievers=("bm25",), ablation=True)
    with pytest.raises(KeyError, match="expand"):
        retrieval_eval(warehouse, toy_bench(), docs="expanded", retrievers=("bm25",))


def test_retrieval_view_renders(warehouse, monkeypatch) -> None:
    pytest.importorskip("streamlit")
    from streamlit.testing.v1 import AppTest

    from core.expansion.run import run_expansion

    model = script(
        lambda messages: json.dumps(next(p for t, p in PROFILES.items() if t in messages[-1]["content"]))
    )
    run_expansion(warehouse, toy_bench(), model=model.model, judge_model=None)
    retrieval_eval(warehouse, toy_bench(), docs="expanded", retrievers=("bm25",), ks=(1,), ablation=True)
    monkeypatch.setenv("DOCSCHISEL_WAREHOUSE", str(warehouse.path))

    def page() -> None:
        from core.ui.views import retrieval

        retrieval.render()

    at = AppTest.from_function(page, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.dataframe) >= 3
