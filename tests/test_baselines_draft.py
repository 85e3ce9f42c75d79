"""DRAFT: diversity and stop rules with hand-computed values; the loop with a scripted model and real tools."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from core.baselines.bleu import sentence_bleu
from core.baselines.draft import DraftConfig, convergence, draft_tool, host_task, should_stop, too_similar
from core.llm import script


def unit(*xs):
    v = np.asarray(xs, dtype=float)
    return v / np.linalg.norm(v)


def test_diversity_rule_hand_computed():
    earlier = [unit(1, 0), unit(0, 1)]
    # cos((3,4)/5, (1,0)) = 0.6 and with (0,1) = 0.8 -> max 0.8 < 0.9: diverse enough
    assert too_similar(unit(3, 4), earlier, 0.9) == (False, pytest.approx(0.8))
    # cos((1,0.2)/|.|, (1,0)) = 1/sqrt(1.04) = 0.98058 >= 0.9: too similar
    similar, best = too_similar(unit(1, 0.2), earlier, 0.9)
    assert similar and best == pytest.approx(1 / math.sqrt(1.04))
    # exactly at the threshold counts as too similar (>=)
    assert too_similar(unit(0.9, math.sqrt(1 - 0.81)), [unit(1, 0)], 0.9)[0]
    assert too_similar(unit(1, 0), [], 0.9) == (False, 0.0)


def fake_embedder(table):
    return lambda texts: np.stack([table[t] for t in texts])


def test_stop_rule_hand_computed():
    a, b = "the cat sat on the mat", "the cat sat on a mat"
    bleu = (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25  # 0.53728
    emb = fake_embedder({a: unit(1, 0), b: unit(0.96, 0.28)})  # cosine 0.96
    delta, got_bleu, cos = convergence(a, b, emb)
    assert got_bleu == pytest.approx(bleu) and cos == pytest.approx(0.96)
    assert delta == pytest.approx((bleu + 0.96) / 2)  # 0.74864
    assert not should_stop(a, b, emb, 0.75)  # 0.7486 is not > 0.75
    assert should_stop(a, b, emb, 0.74)
    same = fake_embedder({a: unit(1, 0)})
    assert convergence(a, a, same)[0] == pytest.approx(1.0) and should_stop(a, a, same, 0.75)
    assert sentence_bleu(a, b) == pytest.approx(bleu)


@pytest.fixture(scope="module")
def bench(data_dir):
    from core.benchmarks.registry import get_benchmark

    return get_benchmark("api-bank", data_dir)


def test_draft_loop_scripted(bench):
    tasks = [t for t in bench.tasks() if t.domain == "finance"]
    doc = bench.original_docs()["GetUserToken"]
    replies = [
        # episode 1: one Explorer call (wrong parameter first -> validation retry), Analyzer, Rewriter
        json.dumps({"User Query": "Get my token, I am user3", "Parameters": {"user": "user3"}}),
        json.dumps(
            {
                "User Query": "Get my token, I am user3",
                "Parameters": {"username": "user3", "password": "user3pass"},
            }
        ),
        json.dumps({"Suggestions for tool description": "Say that it returns a token."}),
        json.dumps(
            {
                "Rewritten description": "Returns the user token for a username and password.",
                "Suggestions for exploring": "try a wrong password",
            }
        ),
        # episode 2: the first query is too similar (retry), then a new one; wrong password -> real error
        json.dumps(
            {"User Query": "Get my token, I am user3", "Parameters": {"username": "user3", "password": "x"}}
        ),
        json.dumps(
            {
                "User Query": "Log in as JohnDoe with a bad password",
                "Parameters": {"username": "JohnDoe", "password": "bad"},
            }
        ),
        json.dumps({"Suggestions for tool description": "Mention the error for a wrong password."}),
        json.dumps(
            {
                "Rewritten description": "Returns the user token for a username and password.",
                "Suggestions for exploring": "",
            }
        ),
    ]
    model = script(replies, name="draft-test")
    seen: dict[str, np.ndarray] = {}

    def emb(texts):
        out = []
        for t in texts:
            if t not in seen:  # identical texts -> identical vectors; different texts -> orthogonal
                v = np.zeros(16)
                v[len(seen)] = 1.0
                seen[t] = v
            out.append(seen[t])
        return np.stack(out)

    new, trace = draft_tool(
        doc, bench, host_task(bench, tasks, "GetUserToken"), DraftConfig(model=model.model), embedder=emb
    )
    assert model.calls == len(replies)
    assert trace.diversity_retries == 1
    assert trace.examples[0]["API_Response"]["response"].startswith("{'token'")
    assert "password" in trace.examples[1]["API_Response"]["error"].lower()
    assert trace.deltas[0]["delta"] < 0.75 and trace.deltas[1]["delta"] == pytest.approx(1.0)
    assert trace.stopped_early  # converged after 2 of 5 episodes
    assert new.description == "Returns the user token for a username and password."
    assert [c for c in new.present()] == [c for c in doc.present()]  # only FD's content changed
    assert new.parameters == doc.parameters and new.returns == doc.returns
    assert all(r["params"].get("temperature") == 0.2 for r in model.requests)
    # the Analyzer sees the current description (the slot the released code left empty)
    assert doc.description in model.requests[2]["messages"][0]["content"]
