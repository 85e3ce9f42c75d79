"""Sentence-level BLEU with Chen & Cherry's smoothing 4, as DRAFT's stop rule uses it.

DRAFT stops rewriting a description when the mean of BLEU and embedding cosine
between the last two versions exceeds a threshold; its code scores BLEU on
lower-cased whitespace tokens with smoothing "method 4" of Chen & Cherry (2014,
"A Systematic Comparison of Smoothing Techniques for Sentence-Level BLEU").
Re-implemented from that definition:

- modified n-gram precision p_n = clipped matches / max(1, number of
  hypothesis n-grams), n = 1..4, uniform weights 1/4;
- BLEU is 0 when no unigram matches;
- smoothing 4: the i-th order (in increasing n) whose match count is 0 gets the
  count 1 / (2^i · K / ln(len(hyp))) instead, K = 5, i = 1, 2, ...; it needs a
  hypothesis of at least 2 tokens (ln 1 = 0); with one token the zero orders
  stay 0 and are left out of the geometric mean, as in the reference toolkit;
- brevity penalty exp(1 - r/c) when the hypothesis (c tokens) is shorter than
  the reference (r tokens), else 1.
"""

from __future__ import annotations

import math
from collections import Counter


def _ngrams(tokens: list[str], n: int) -> Counter:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def tokenize(text: str) -> list[str]:
    return text.lower().split()


def sentence_bleu(reference: str, hypothesis: str, max_n: int = 4, k: float = 5.0) -> float:
    """BLEU of `hypothesis` against one `reference` (lower-cased whitespace tokens), smoothing 4."""
    ref, hyp = tokenize(reference), tokenize(hypothesis)
    if not hyp or not ref:
        return 0.0
    matches, totals = [], []
    for n in range(1, max_n + 1):
        h, r = _ngrams(hyp, n), _ngrams(ref, n)
        matches.append(sum(min(c, r[g]) for g, c in h.items()))
        totals.append(max(1, sum(h.values())))
    if matches[0] == 0:
        return 0.0
    precisions = []
    inc = 1
    for m, t in zip(matches, totals, strict=True):
        if m == 0 and len(hyp) > 1:
            m = 1.0 / (2**inc * k / math.log(len(hyp)))
            inc += 1
        precisions.append(m / t)
    weight = 1.0 / max_n
    log_sum = sum(weight * math.log(p) for p in precisions if p > 0)
    c, r = len(hyp), len(ref)
    bp = 1.0 if c > r else math.exp(1 - r / c)
    return bp * math.exp(log_sum)
