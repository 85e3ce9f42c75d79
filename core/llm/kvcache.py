"""A RAM cache of llama.cpp states keyed by the tokens they hold (prefix reuse across episodes).

Why: on 2 cores prompt processing dominates a local model's time (about 50
tokens per CPU-second for Qwen2.5-Coder-0.5B), and agent prompts repeat a long
prefix: the system prompt and tool docs are the same for every task of a doc
set, and each step of an episode repeats the whole conversation so far.
llama-cpp-python already reuses the KV cache for the common prefix with the
*previous* prompt, but the runner interleaves the steps of concurrent episodes,
so the previous prompt is usually another episode's. This cache keeps the
state after each reply and, before the next request, restores the stored state
sharing the longest prefix with it, so only the new tokens are evaluated.

llama-cpp-python's own `LlamaRAMCache` is not used: its saved state copies the
whole logits buffer (n_batch × vocabulary floats, about 300 MB for Qwen's
152k-token vocabulary) while counting only the KV bytes against its capacity,
and its lookup compares tokens in a Python loop. Here a state is the KV bytes,
the input ids and the token count; the logits are recomputed by re-evaluating
the last prompt token, which llama-cpp-python does whenever a restored state
is marked as needing evaluation.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

# Restoring costs a copy of the state; below this gain it is cheaper to evaluate.
MIN_GAIN_TOKENS = 16


@dataclass
class _State:
    tokens: np.ndarray  # the token ids the state holds, in order
    input_ids: np.ndarray  # llama-cpp-python's full input-id buffer at save time
    data: bytes

    @property
    def nbytes(self) -> int:
        return len(self.data) + self.tokens.nbytes + self.input_ids.nbytes


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """Length of the common prefix of two token arrays."""
    n = min(len(a), len(b))
    if n == 0:
        return 0
    diff = np.flatnonzero(a[:n] != b[:n])
    return int(diff[0]) if diff.size else n


@dataclass
class StateCacheStats:
    restores: int = 0
    saves: int = 0
    tokens_saved: int = 0  # prompt tokens not evaluated thanks to a restore


class StateCache:
    """LRU states of one `llama_cpp.Llama`, bounded in bytes; call only under the model's lock."""

    def __init__(self, llm: Any, capacity_bytes: int) -> None:
        self.llm = llm
        self.capacity = capacity_bytes
        self.states: OrderedDict[int, _State] = OrderedDict()
        self.size = 0
        self.stats = StateCacheStats()
        self._next = 0

    def restore_best(self, prompt_tokens: list[int]) -> int:
        """Load the stored state sharing the longest prefix with the prompt, if it beats the live one.

        Returns how many prompt tokens the model now holds (0 when nothing useful is cached).
        """
        if self.capacity <= 0 or not self.states:
            return 0
        want = np.asarray(prompt_tokens, dtype=np.intc)
        live = common_prefix(np.asarray(self.llm._input_ids, dtype=np.intc), want)
        best_key, best = None, live
        for key, state in self.states.items():
            n = common_prefix(state.tokens, want)
            if n > best:
                best_key, best = key, n
        if best_key is None or best - live < MIN_GAIN_TOKENS:
            return live
        state = self.states[best_key]
        self.states.move_to_end(best_key)
        import llama_cpp

        buf = (ctypes.c_uint8 * len(state.data)).from_buffer_copy(state.data)
        if llama_cpp.llama_state_set_data(self.llm._ctx.ctx, buf, len(state.data)) != len(state.data):
            self.llm.reset()
            return 0
        self.llm.input_ids = state.input_ids.copy()
        self.llm.n_tokens = len(state.tokens)
        self.llm._requires_eval = True  # logits are not part of what we keep: re-evaluate one token
        self.stats.restores += 1
        self.stats.tokens_saved += best - live
        return best

    def save(self) -> None:
        """Store the model's current state (the prompt and reply just evaluated)."""
        if self.capacity <= 0 or self.llm.n_tokens == 0:
            return
        import llama_cpp

        ctx = self.llm._ctx.ctx
        size = int(llama_cpp.llama_state_get_size(ctx))
        buf = (ctypes.c_uint8 * size)()
        n = int(llama_cpp.llama_state_get_data(ctx, buf, size))
        tokens = np.array(self.llm._input_ids, dtype=np.intc)
        # a stored state that is a prefix of this one is superseded by it
        for key in [k for k, s in self.states.items() if common_prefix(s.tokens, tokens) == len(s.tokens)]:
            self.size -= self.states.pop(key).nbytes
        state = _State(tokens=tokens, input_ids=self.llm.input_ids.copy(), data=bytes(buf)[:n])
        if state.nbytes > self.capacity:
            return
        self.states[self._next] = state
        self._next += 1
        self.size += state.nbytes
        self.stats.saves += 1
        while self.size > self.capacity and self.states:
            self.size -= self.states.popitem(last=False)[1].nbytes

    def clear(self) -> None:
        self.states.clear()
        self.size = 0
