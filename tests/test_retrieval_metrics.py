"""Retrieval metrics against a hand-worked example, an independent implementation and pytrec_eval."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from core.retrieval import comprehensiveness_at_k, mean_metrics, ndcg_at_k, per_query, recall_at_k


def test_hand_worked_example() -> None:
    # q1: relevant {a, c}; ranking a, b, c, d.
    #   @2: DCG = 1/log2(2) = 1; IDCG = 1 + 1/log2(3) = 1.63093 -> nDCG 0.61315; recall 1/2; C 0
    #   @3: DCG = 1 + 1/log2(4) = 1.5 -> nDCG 0.91972; recall 1; C 1
    # q2: relevant {d}; same ranking. @3: 0; @4: DCG = 1/log2(5) = 0.43068 = nDCG
    ranked = ["a", "b", "c", "d"]
    q1 = {"a": 1, "c": 1}
    q2 = {"d": 1}
    assert ndcg_at_k(ranked, q1, 2) == pytest.approx(0.61315, abs=1e-5)
    assert recall_at_k(ranked, q1, 2) == 0.5
    assert comprehensiveness_at_k(ranked, q1, 2) == 0.0
    assert ndcg_at_k(ranked, q1, 3) == pytest.approx(0.91972, abs=1e-5)
    assert recall_at_k(ranked, q1, 3) == 1.0
    assert comprehensiveness_at_k(ranked, q1, 3) == 1.0
    assert ndcg_at_k(ranked, q2, 3) == 0.0
    assert ndcg_at_k(ranked, q2, 4) == pytest.approx(0.43068, abs=1e-5)
    means = mean_metrics({"q1": ranked, "q2": ranked}, {"q1": q1, "q2": q2}, ks=(3,))
    assert means["ndcg@3"] == pytest.approx(0.91972 / 2, abs=1e-5)
    assert means["recall@3"] == 0.5
    assert means["comprehensiveness@3"] == 0.5
    assert means["n_queries"] == 2


def test_graded_relevance_uses_linear_gain() -> None:
    # relevant a (2), b (1); ranking b, a: DCG = 1 + 2/log2(3); IDCG = 2 + 1/log2(3)
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert ndcg_at_k(["b", "a"], {"a": 2, "b": 1}, 10) == pytest.approx(expected)


def test_queries_without_relevant_tools_are_left_out() -> None:
    rows = per_query({"q": ["a"], "empty": ["a"]}, {"q": {"a": 1}, "empty": {"a": 0}}, ks=(1,))
    assert set(rows) == {"q"}
    assert mean_metrics({}, {}, ks=(1,))["n_queries"] == 0


def test_duplicates_count_once() -> None:
    assert recall_at_k(["a", "a", "b"], {"b": 1}, 2) == 1.0


def _reference(ranked: list[str], relevant: set[str], k: int) -> tuple[float, float, float]:
    """A second, vectorised implementation written from the definitions."""
    hits = np.array([1.0 if t in relevant else 0.0 for t in ranked[:k]])
    discounts = 1.0 / np.log2(np.arange(2, len(hits) + 2))
    ideal = np.ones(min(k, len(relevant)))
    idcg = float((ideal / np.log2(np.arange(2, len(ideal) + 2))).sum())
    ndcg = float((hits * discounts).sum()) / idcg
    recall = hits.sum() / len(relevant)
    return ndcg, float(recall), float(recall == 1.0)


def _random_case(rng: random.Random) -> tuple[list[str], set[str]]:
    pool = [f"t{i:02d}" for i in range(rng.randint(3, 30))]
    ranked = rng.sample(pool, len(pool))
    relevant = set(rng.sample(pool, rng.randint(1, min(4, len(pool)))))
    return ranked, relevant


def test_matches_independent_reference() -> None:
    rng = random.Random(7)
    for _ in range(300):
        ranked, relevant = _random_case(rng)
        rels = dict.fromkeys(relevant, 1)
        for k in (1, 5, 10, 20):
            n, r, c = _reference(ranked, relevant, k)
            assert ndcg_at_k(ranked, rels, k) == pytest.approx(n)
            assert recall_at_k(ranked, rels, k) == pytest.approx(r)
            assert comprehensiveness_at_k(ranked, rels, k) == c


def test_matches_pytrec_eval() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier is not installed")
    rng = random.Random(11)
    run, qrels, ours_run = {}, {}, {}
    for i in range(200):
        ranked, relevant = _random_case(rng)
        qid = f"q{i}"
        # distinct decreasing scores so trec_eval's tie-breaking never applies
        run[qid] = {t: float(len(ranked) - j) for j, t in enumerate(ranked)}
        grades = {t: rng.choice([1, 1, 2, 3]) for t in relevant}
        qrels[qid] = {**grades, **{t: 0 for t in rng.sample(ranked, 2) if t not in relevant}}
        ours_run[qid] = ranked
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5,10", "recall.5,10"})
    theirs = evaluator.evaluate(run)
    ours = per_query(ours_run, qrels, ks=(5, 10))
    for qid, values in theirs.items():
        for k in (5, 10):
            assert ours[qid][f"ndcg@{k}"] == pytest.approx(values[f"ndcg_cut_{k}"], abs=1e-9)
            assert ours[qid][f"recall@{k}"] == pytest.approx(values[f"recall_{k}"], abs=1e-9)
            assert ours[qid][f"comprehensiveness@{k}"] == float(values[f"recall_{k}"] == 1.0)
