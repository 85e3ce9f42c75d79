"""The one path for every LLM call: cache, retries, concurrency, accounting.

Agents, optimizers, baselines and judges all call `complete()`. It sits on
`litellm.completion`, so a hosted model, the offline SmolLM2 (`local/...`), a
scripted test double (`scripted/...`) and litellm's `mock_response` all go
through exactly the same code, and what tests exercise is what runs.

litellm is imported lazily (on the first call) because importing it costs
seconds; the environment is set first so that importing it never reaches
for the network (`LITELLM_LOCAL_MODEL_COST_MAP`). API keys are read by litellm
from the environment; `complete()` refuses an explicit `api_key` so that no
key can travel through our code into a cache key or a stored row.
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.llm.cache import CacheStore, MemoryCache, cache_key, request_record, scrub
from core.llm.ledger import LEDGER, LedgerEntry
from core.llm.types import LLMResult

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

log = logging.getLogger(__name__)

# Measured (bench/local_model.py, docs/RESULTS.md): the fastest local model with at least 50 %
# right full calls on API-Bank level-1 is the target agent; the strongest one optimizes.
DEFAULT_MODEL = "local/qwen2.5-coder-0.5b"
DEFAULT_OPTIMIZER_MODEL = "local/qwen2.5-coder-1.5b"
# Providers that run inside this process: no network, no money, no transient failures.
IN_PROCESS = ("local", "scripted")


def default_model() -> str:
    """The target agent's backbone when none is given: DOCSCHISEL_MODEL, else the offline Qwen 0.5B."""
    return os.environ.get("DOCSCHISEL_MODEL") or DEFAULT_MODEL


def default_optimizer_model() -> str:
    """The model that writes docs and judges them (LLM engine, EasyTool, DRAFT, Tool-REX) when none is given.

    DOCSCHISEL_OPTIMIZER_MODEL, else DOCSCHISEL_MODEL (a user who configured a
    hosted model wants it everywhere), else the offline Qwen 1.5B.
    """
    return (
        os.environ.get("DOCSCHISEL_OPTIMIZER_MODEL")
        or os.environ.get("DOCSCHISEL_MODEL")
        or DEFAULT_OPTIMIZER_MODEL
    )


def provider_of(model: str) -> str:
    """The provider prefix of a litellm model string ("" when there is none)."""
    return model.split("/", 1)[0] if "/" in model else ""


@dataclass
class GatewayConfig:
    """Knobs of the gateway; change them with `configure(...)`.

    `concurrency` bounds simultaneous calls per provider in this process;
    `provider_concurrency` overrides it per provider (the local model gets 1
    because llama.cpp is not thread-safe). Backoff is exponential
    (`backoff_base * 2**attempt`, capped) with multiplicative jitter.
    """

    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    jitter: float = 0.5
    concurrency: int = int(os.environ.get("DOCSCHISEL_LLM_CONCURRENCY", "4"))
    provider_concurrency: dict[str, int] = field(default_factory=lambda: {"local": 1})
    timeout_s: float = 120.0
    sleep: Callable[[float], None] = time.sleep


CONFIG = GatewayConfig()
_cache: CacheStore = MemoryCache()
_sem_lock = threading.Lock()
_semaphores: dict[str, tuple[int, threading.BoundedSemaphore]] = {}
_setup_lock = threading.Lock()
_litellm_mod: Any = None


def configure(**changes: Any) -> GatewayConfig:
    """Change gateway settings (e.g. `configure(concurrency=8, max_retries=2)`)."""
    for k, v in changes.items():
        if not hasattr(CONFIG, k):
            raise TypeError(f"unknown gateway setting {k!r}")
        setattr(CONFIG, k, v)
    return CONFIG


def set_cache(store: CacheStore) -> CacheStore:
    """Use another cache store for the default `cache=True` (returns the previous one)."""
    global _cache
    previous, _cache = _cache, store
    return previous


def get_cache() -> CacheStore:
    return _cache


def _litellm() -> Any:
    """Import litellm once, quietly, with our in-process providers registered."""
    global _litellm_mod
    if _litellm_mod is not None:
        return _litellm_mod
    with _setup_lock:
        if _litellm_mod is None:
            import litellm

            litellm.suppress_debug_info = True
            litellm.telemetry = False
            from core.llm.local import LocalProvider
            from core.llm.scripted import handler as scripted_handler

            present = {item.get("provider") for item in litellm.custom_provider_map}
            if "local" not in present:
                litellm.custom_provider_map.append({"provider": "local", "custom_handler": LocalProvider()})
            if "scripted" not in present:
                litellm.custom_provider_map.append(
                    {"provider": "scripted", "custom_handler": scripted_handler()}
                )
            from litellm.utils import custom_llm_setup

            custom_llm_setup()
            _litellm_mod = litellm
    return _litellm_mod


def register_providers() -> None:
    """Make `local/...` and `scripted/...` usable with plain `litellm.completion` (idempotent)."""
    _litellm()


def _semaphore(provider: str) -> threading.BoundedSemaphore:
    limit = max(1, int(CONFIG.provider_concurrency.get(provider, CONFIG.concurrency)))
    with _sem_lock:
        current = _semaphores.get(provider)
        if current is None or current[0] != limit:
            current = (limit, threading.BoundedSemaphore(limit))
            _semaphores[provider] = current
        return current[1]


def _transient(exc: BaseException, provider: str) -> bool:
    """Worth retrying: rate limits, timeouts, connection and server errors; never bad requests.

    For in-process providers litellm reports any Python exception as an
    APIConnectionError; those are bugs or bad inputs, not flaky networks, so
    only explicit rate-limit/server errors are retried there.
    """
    import litellm

    if isinstance(exc, litellm.BadRequestError | litellm.AuthenticationError | litellm.NotFoundError):
        return False
    server = (litellm.RateLimitError, litellm.ServiceUnavailableError, litellm.InternalServerError)
    if isinstance(exc, server):
        return True
    if isinstance(exc, litellm.Timeout | litellm.APIConnectionError):
        return provider not in IN_PROCESS
    return False


def _provider_salt(provider: str, model: str) -> str:
    """What besides the request determines an in-process provider's output (model build, script)."""
    if provider == "local":
        from core.llm.local import cache_salt

        return cache_salt(model)
    if provider == "scripted":
        from core.llm.scripted import SCRIPTED

        return SCRIPTED.cache_salt(model)
    return ""


def _cost(litellm: Any, response: Any, provider: str, params: dict[str, Any]) -> float:
    if provider in IN_PROCESS or "mock_response" in params or "mock_tool_calls" in params:
        return 0.0
    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # noqa: BLE001 - unknown price: report 0 rather than fail the call
        return 0.0


def _dump(response: Any) -> dict[str, Any]:
    if hasattr(response, "model_dump_json"):
        return json.loads(response.model_dump_json())
    return json.loads(json.dumps(response, default=str))


def complete(
    model: str,
    messages: list[dict[str, Any]],
    *,
    tools: list[dict[str, Any]] | None = None,
    tool_choice: Any = None,
    temperature: float = 0.0,
    max_tokens: int | None = None,
    seed: int | None = None,
    purpose: str = "",
    run_id: str | None = None,
    cache: bool | CacheStore = True,
    **params: Any,
) -> LLMResult:
    """Call `model` on `messages` (OpenAI format) and return an `LLMResult`.

    `cache=True` uses the process cache store (see `set_cache`), `False`
    bypasses it, a `CacheStore` uses that store. `purpose` and `run_id` label
    the accounting entry. Extra `params` go to `litellm.completion`
    (`response_format`, `mock_response`, `top_p`, ...). Errors are litellm's
    exception types, raised after retries are exhausted (transient errors) or
    at once (bad requests).
    """
    if "api_key" in params:
        raise ValueError("pass API keys through the environment (e.g. OPENAI_API_KEY), not as arguments")
    provider = provider_of(model)
    if provider == "local":
        from core.llm.local import ensure_available

        ensure_available(model.split("/", 1)[1])
    store: CacheStore | None = _cache if cache is True else None if cache in (False, None) else cache
    record = request_record(
        model,
        messages,
        tools=tools,
        tool_choice=tool_choice,
        temperature=temperature,
        max_tokens=max_tokens,
        seed=seed,
        salt=_provider_salt(provider, model),
        **params,
    )
    key = cache_key(record)
    call_id = uuid.uuid4().hex
    start = time.perf_counter()

    if store is not None:
        cached = store.get(key)
        if cached is not None:
            cost = float(cached.pop("_cost", 0.0) or 0.0)
            result = LLMResult.from_response(model, cached)
            result.cache_hit, result.cache_key, result.call_id, result.cost = True, key, call_id, cost
            result.latency_s = time.perf_counter() - start
            LEDGER.record(_entry(result, run_id, purpose))
            return result

    litellm = _litellm()
    start = time.perf_counter()  # latency of the call itself, not of importing litellm
    kwargs: dict[str, Any] = {"model": model, "messages": messages, "temperature": temperature, **params}
    for name, value in (
        ("tools", tools),
        ("tool_choice", tool_choice),
        ("max_tokens", max_tokens),
        ("seed", seed),
    ):
        if value is not None:
            kwargs[name] = value
    if provider not in IN_PROCESS:
        kwargs.setdefault("timeout", CONFIG.timeout_s)
        kwargs.setdefault("drop_params", True)
    response = _call_with_retries(litellm, kwargs, provider, call_id, model, run_id, purpose, start)

    raw = _dump(response)
    raw.pop("_hidden_params", None)
    result = LLMResult.from_response(model, raw)
    result.cost = _cost(litellm, response, provider, params)
    result.latency_s = time.perf_counter() - start
    result.cache_key, result.call_id = key, call_id
    if store is not None:
        stored = {**raw, "_cost": result.cost}
        store.put(key, model, record, stored, result.tokens_in, result.tokens_out, result.cost)
    LEDGER.record(_entry(result, run_id, purpose))
    return result


def _call_with_retries(
    litellm: Any,
    kwargs: dict[str, Any],
    provider: str,
    call_id: str,
    model: str,
    run_id: str | None,
    purpose: str,
    start: float,
) -> Any:
    attempt = 0
    while True:
        try:
            with _semaphore(provider):
                return litellm.completion(**kwargs)
        except Exception as exc:
            if attempt >= CONFIG.max_retries or not _transient(exc, provider):
                LEDGER.record(
                    LedgerEntry(
                        call_id=call_id,
                        run_id=run_id,
                        purpose=purpose,
                        model=model,
                        tokens_in=0,
                        tokens_out=0,
                        cost=0.0,
                        latency_s=time.perf_counter() - start,
                        cache_hit=False,
                        error=scrub(f"{type(exc).__name__}: {str(exc)[:300]}"),
                    )
                )
                raise
            delay = min(CONFIG.backoff_max, CONFIG.backoff_base * 2**attempt)
            delay *= 1 + random.uniform(0, CONFIG.jitter)
            log.info("transient %s from %s, retry %d in %.1fs", type(exc).__name__, model, attempt + 1, delay)
            CONFIG.sleep(delay)
            attempt += 1


def _entry(result: LLMResult, run_id: str | None, purpose: str) -> LedgerEntry:
    return LedgerEntry(
        call_id=result.call_id,
        run_id=run_id,
        purpose=purpose,
        model=result.model,
        tokens_in=result.tokens_in,
        tokens_out=result.tokens_out,
        cost=result.cost,
        latency_s=result.latency_s,
        cache_hit=result.cache_hit,
    )
