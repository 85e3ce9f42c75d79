"""Sentence-BLEU (smoothing 4) against values computed by hand."""

from __future__ import annotations

import math

import pytest

from core.baselines.bleu import sentence_bleu


def test_identical_is_one():
    assert sentence_bleu("the cat sat on the mat", "The cat sat on the mat") == pytest.approx(1.0)


def test_no_smoothing_needed():
    # unigrams 5/6, bigrams 3/5, trigrams 2/4, 4-grams 1/3; equal lengths, so no brevity penalty
    expected = (5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25
    assert sentence_bleu("the cat sat on the mat", "the cat sat on a mat") == pytest.approx(expected)


def test_smoothing_4_and_brevity_penalty():
    # hyp "the dog ran" (3 tokens) vs a 6-token reference: unigrams 1/3; the 2-, 3- and 4-gram
    # orders match nothing and get counts ln(3)/10, ln(3)/20, ln(3)/40 over 2, 1, 1 n-grams
    # (4-grams: max(1, 0) = 1); brevity penalty exp(1 - 6/3).
    l3 = math.log(3)
    p = [1 / 3, (l3 / 10) / 2, (l3 / 20) / 1, (l3 / 40) / 1]
    expected = math.exp(1 - 6 / 3) * math.exp(sum(0.25 * math.log(x) for x in p))
    assert sentence_bleu("the cat sat on the mat", "the dog ran") == pytest.approx(expected)
    assert sentence_bleu("the cat sat on the mat", "the dog ran") == pytest.approx(0.026670, abs=1e-6)


def test_zero_cases():
    assert sentence_bleu("a b c", "x y z") == 0.0
    assert sentence_bleu("a b c", "") == 0.0
    # one token: higher orders cannot be smoothed (ln 1 = 0) and drop out of the mean
    assert sentence_bleu("a b c", "a") == pytest.approx(math.exp(1 - 3) * math.exp(0.25 * math.log(1.0)))
