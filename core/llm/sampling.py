"""Token generation for the local models with a grammar checked lazily.

Why our own loop: llama-cpp-python's sampler chain builds a candidate array of
the whole vocabulary (152k entries for Qwen) and runs the grammar over all of
it at every token, which cost a third of the generation time on 2 cores. Here
the unconstrained choice is made first and the grammar asked about that one
token; only when it is rejected is the grammar applied to the full vocabulary
(llama.cpp's own `common_sampler` does the same). With greedy decoding this
returns exactly what full-vocabulary constrained decoding returns: the
unconstrained argmax when the grammar allows it, else the best allowed token.
With a temperature, the first draw is kept when allowed and otherwise redrawn
from the allowed tokens.

With a `forcer` (tool calls, see `core.llm.forcing`), the text every allowed
reply shares at the current point is appended as one batch with the next
evaluation instead of being sampled token by token, and a reply that is
complete ends without waiting for the end-of-turn token.

The prompt is evaluated only from the first token that differs from what the
context already holds (prefix reuse), and at least its last token is
re-evaluated so the logits are fresh, also after a state was restored.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.llm.forcing import Forced

PENALTY_LAST_N = 64  # llama-cpp-python's default window for repetition penalties


@dataclass(frozen=True)
class Sampling:
    max_tokens: int
    temperature: float = 0.0
    top_p: float = 0.95
    top_k: int = 40
    min_p: float = 0.05
    seed: int = 0
    repeat_penalty: float = 1.0
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0
    stop: tuple[str, ...] = ()


class _Grammar:
    """A llama.cpp grammar sampler for one generation (freed afterwards)."""

    def __init__(self, llm: Any, text: str) -> None:
        import llama_cpp

        self._lib = llama_cpp
        self.ptr = llama_cpp.llama_sampler_init_grammar(llm._model.vocab, text.encode("utf-8"), b"root")
        if not self.ptr:
            raise ValueError("llama.cpp rejected the grammar")
        self._one = (llama_cpp.llama_token_data * 1)()
        self._one_arr = llama_cpp.llama_token_data_array(data=self._one, size=1, selected=-1, sorted=False)

    def allows(self, token: int, logit: float) -> bool:
        self._one[0].id, self._one[0].logit, self._one[0].p = token, logit, 0.0
        self._one_arr.size, self._one_arr.selected = 1, -1
        self._one_arr.data = self._one
        self._lib.llama_sampler_apply(self.ptr, ctypes.byref(self._one_arr))
        return self._one_arr.size == 1 and np.isfinite(self._one[0].logit)

    def mask(self, logits: np.ndarray) -> np.ndarray:
        """The logits with every token the grammar rejects set to -inf."""
        n = len(logits)
        data = np.zeros(
            n, dtype=np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
        )
        data["id"] = np.arange(n, dtype=np.intc)
        data["logit"] = logits
        ptr = data.ctypes.data_as(ctypes.POINTER(self._lib.llama_token_data))
        arr = self._lib.llama_token_data_array(data=ptr, size=n, selected=-1, sorted=False)
        self._lib.llama_sampler_apply(self.ptr, ctypes.byref(arr))
        kept = (
            np.ctypeslib.as_array(arr.data, shape=(arr.size,)) if arr.size else np.zeros(0, dtype=data.dtype)
        )
        out = np.full(n, -np.inf, dtype=np.single)
        ok = np.isfinite(kept["logit"])
        out[kept["id"][ok]] = kept["logit"][ok]
        return out

    def accept(self, token: int) -> None:
        self._lib.llama_sampler_accept(self.ptr, token)

    def close(self) -> None:
        if self.ptr:
            self._lib.llama_sampler_free(self.ptr)
            self.ptr = None


def _penalised(logits: np.ndarray, recent: Sequence[int], s: Sampling) -> np.ndarray:
    if not recent or (s.repeat_penalty == 1.0 and not s.frequency_penalty and not s.presence_penalty):
        return logits
    out = logits.copy()
    ids, counts = np.unique(np.asarray(recent[-PENALTY_LAST_N:], dtype=np.int64), return_counts=True)
    vals = out[ids]
    if s.repeat_penalty != 1.0:
        vals = np.where(vals > 0, vals / s.repeat_penalty, vals * s.repeat_penalty)
    out[ids] = vals - counts * s.frequency_penalty - (counts > 0) * s.presence_penalty
    return out


def _draw(logits: np.ndarray, s: Sampling, rng: np.random.Generator) -> int:
    """Greedy at temperature 0; otherwise top-k, top-p and min-p filtering, then a seeded draw."""
    if s.temperature <= 0:
        return int(np.argmax(logits))
    finite = np.flatnonzero(np.isfinite(logits))
    k = min(s.top_k if s.top_k > 0 else len(finite), len(finite))
    top = finite[np.argpartition(-logits[finite], k - 1)[:k]]
    top = top[np.argsort(-logits[top], kind="stable")]
    z = logits[top].astype(np.float64) / s.temperature
    p = np.exp(z - z.max())
    p /= p.sum()
    keep = max(1, int(np.searchsorted(np.cumsum(p), s.top_p) + 1)) if s.top_p < 1.0 else len(p)
    keep = min(keep, int(np.sum(p >= s.min_p * p[0])) or 1) if s.min_p > 0 else keep
    p = p[:keep] / p[:keep].sum()
    return int(top[rng.choice(keep, p=p)])


def _forced(
    llm: Any, g: _Grammar | None, forcer: Callable[[str], Forced] | None, out: list[int], cap: int
) -> tuple[list[int], bool]:
    """The tokens the reply must continue with (see `core.llm.forcing`), each checked by the grammar.

    Returns (tokens, done): done when the reply with them is complete. A token
    the grammar refuses ends the forced run there (the model continues).
    """
    if forcer is None or len(out) >= cap:
        return [], False
    try:
        text = llm.detokenize(out).decode("utf-8")
    except UnicodeDecodeError:
        return [], False  # the reply ends inside a character: let the model finish it
    forced = forcer(text)
    if not forced.text:
        return [], forced.done
    ids = llm.tokenize(forced.text.encode("utf-8"), add_bos=False, special=True)
    room = cap - len(out)
    kept: list[int] = []
    for token in ids[:room]:
        if g is not None:
            if not g.allows(token, 0.0):
                return kept, False
            g.accept(token)
        kept.append(token)
    return kept, forced.done and len(kept) == len(ids)


def generate(
    llm: Any,
    prompt_tokens: Sequence[int],
    grammar: str | None,
    s: Sampling,
    forcer: Callable[[str], Forced] | None = None,
) -> dict[str, Any]:
    """Evaluate the prompt (reusing the held prefix), then sample up to `max_tokens` tokens.

    Returns a llama-cpp-python-shaped completion: choices[0].text and
    finish_reason ("stop" at an end-of-generation token or a stop string,
    "length" at max_tokens), and usage.
    """
    import llama_cpp

    tokens = list(prompt_tokens)
    held = np.asarray(llm._input_ids, dtype=np.intc)
    n = min(len(held), len(tokens))
    diff = np.flatnonzero(held[:n] != np.asarray(tokens[:n], dtype=np.intc))
    prefix = int(diff[0]) if diff.size else n
    prefix = min(prefix, len(tokens) - 1)  # the last prompt token is always evaluated: fresh logits
    llm.n_tokens = prefix
    vocab = llm._model.vocab
    n_vocab = llm.n_vocab()
    rng = np.random.default_rng(s.seed)
    g = _Grammar(llm, grammar) if grammar else None
    out: list[int] = []
    finish = "length"
    try:
        pending, done = _forced(llm, g, forcer, out, s.max_tokens)
        out.extend(pending)
        llm.eval(tokens[prefix:] + pending)
        pending = []
        while not done and len(out) < s.max_tokens:
            if pending:
                llm.eval(pending)
                pending = []
            raw = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1), shape=(n_vocab,))
            logits = _penalised(np.array(raw, dtype=np.single), [*tokens, *out], s)
            token = _draw(logits, s, rng)
            if g is not None and not g.allows(token, float(logits[token])):
                masked = g.mask(logits)
                if not np.isfinite(masked).any():
                    done = True  # the grammar admits nothing more: the reply is complete
                    break
                token = _draw(masked, s, rng)
            if llama_cpp.llama_vocab_is_eog(vocab, token):
                done = True
                break
            if g is not None:
                g.accept(token)
            out.append(token)
            pending = [token]
            text = llm.detokenize(out).decode("utf-8", errors="ignore")
            if any(stop and stop in text for stop in s.stop):
                done = True
                break
            more, done = _forced(llm, g, forcer, out, s.max_tokens)
            out.extend(more)
            pending.extend(more)
        if done:
            finish = "stop"
    finally:
        if g is not None:
            g.close()
    text = llm.detokenize(out).decode("utf-8", errors="ignore")
    for stop in s.stop:
        if stop and stop in text:
            text = text[: text.index(stop)]
    return {
        "choices": [{"text": text, "finish_reason": finish, "index": 0}],
        "usage": {
            "prompt_tokens": len(tokens),
            "completion_tokens": len(out),
            "total_tokens": len(tokens) + len(out),
        },
    }
