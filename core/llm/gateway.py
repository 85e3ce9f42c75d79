"""The one path for every LLM call: cache, retries, concurrency, accounting.

Agents, optimizers, baselines and judges all call `complete()`, which uses the
installed `Gateway`: one object holding the settings, the response cache, the
per-provider concurrency limits and the ledger, created and installed by the
entry point (a CLI command, a job, a test fixture) rather than living in
module globals. It sits on `litellm.completion`, so a hosted model, the offline
models (`local/...`), a scripted test double (`scripted/...`) and litellm's
`mock_response` all go through exactly the same code, and what tests exercise
is what runs.

litellm is imported lazily (on the first call) because importing it costs
seconds; the environment is set first so that importing it never reaches
for the network (`LITELLM_LOCAL_MODEL_COST_MAP`). API keys are read by litellm
from the environment; `complete()` refuses an explicit `api_key` so that no
key can travel through our code into a cache key or a stored row.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from core.llm.cache import CacheStore, MemoryCache, cache_key, request_record, scrub
from core.llm.ledger import Ledger, LedgerEntry
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
    """Knobs of a gateway.

    `concurrency` bounds simultaneous calls per provider;
    `provider_concurrency` overrides it per provider (the local model gets 1
    because llama.cpp is not thread-safe). Backoff is exponential
    (`backoff_base * 2**attempt`, capped) with multiplicative jitter.
    """

    max_retries: int = 4
    backoff_base: float = 1.0
    backoff_max: float = 30.0
    jitter: float = 0.5
    concurrency: int = field(default_factory=lambda: int(os.environ.get("DOCSCHISEL_LLM_CONCURRENCY", "4")))
    provider_concurrency: dict[str, int] = field(default_factory=lambda: {"local": 1})
    timeout_s: float = 120.0
    sleep: Callable[[float], None] = time.sleep


@dataclass(frozen=True)
class Purpose:
    """What a call was for: the step (agent, diagnose, easytool.guideline, ...) and the tool it served.

    Accounting groups by these fields (tokens per optimized tool come from
    `ledger.totals(run_id=..., tool=...)`), instead of parsing label strings.
    """

    step: str = ""
    tool: str | None = None

    @classmethod
    def of(cls, value: Purpose | str | None) -> Purpose:
        if isinstance(value, Purpose):
            return value
        return cls(step=value or "")


class Gateway:
    """The one path for LLM calls: its config, response cache, concurrency limits and ledger.

    Entry points create one explicitly (`Gateway.for_warehouse(wh)` for a
    command that stores its calls, a fresh `Gateway()` per test) and install it
    with `use()`; code below calls the module-level `complete()`, which uses
    the installed gateway. Nothing else rewires it.
    """

    def __init__(
        self,
        *,
        config: GatewayConfig | None = None,
        cache: CacheStore | None = None,
        ledger: Ledger | None = None,
    ) -> None:
        self.config = config or GatewayConfig()
        self.cache: CacheStore = cache if cache is not None else MemoryCache()
        self.ledger = ledger or Ledger()
        self._sem_lock = threading.Lock()
        self._semaphores: dict[str, tuple[int, threading.BoundedSemaphore]] = {}

    @classmethod
    def for_warehouse(cls, warehouse: Any, **kw: Any) -> Gateway:
        """A gateway whose cache and accounting rows live in `warehouse` (across runs and processes)."""
        from core.llm.cache import WarehouseCache

        return cls(cache=WarehouseCache(warehouse), ledger=Ledger(sink=warehouse.record_llm_calls), **kw)

    def configure(self, **changes: Any) -> GatewayConfig:
        """Change settings (e.g. `configure(concurrency=8, max_retries=2)`)."""
        for k, v in changes.items():
            if not hasattr(self.config, k):
                raise TypeError(f"unknown gateway setting {k!r}")
            setattr(self.config, k, v)
        return self.config

    def semaphore(self, provider: str) -> threading.BoundedSemaphore:
        limit = max(1, int(self.config.provider_concurrency.get(provider, self.config.concurrency)))
        with self._sem_lock:
            current = self._semaphores.get(provider)
            if current is None or current[0] != limit:
                current = (limit, threading.BoundedSemaphore(limit))
                self._semaphores[provider] = current
            return current[1]

    def complete(
        self,
        model: str,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        seed: int | None = None,
        purpose: Purpose | str = "",
        run_id: str | None = None,
        cache: bool | CacheStore = True,
        **params: Any,
    ) -> LLMResult:
        """Call `model` on `messages` (OpenAI format) and return an `LLMResult`.

        `cache=True` uses this gateway's cache store, `False` bypasses it, a
        `CacheStore` uses that store. `purpose` and `run_id` label the
        accounting entry. Extra `params` go to `litellm.completion`
        (`response_format`, `mock_response`, `top_p`, ...). Errors are
        litellm's exception types, raised after retries are exhausted
        (transient errors) or at once (bad requests).
        """
        if "api_key" in params:
            raise ValueError("pass API keys through the environment (e.g. OPENAI_API_KEY), not as arguments")
        label = Purpose.of(purpose)
        provider = provider_of(model)
        if provider == "local":
            from core.llm.local import ensure_available

            ensure_available(model.split("/", 1)[1])
        store: CacheStore | None = self.cache if cache is True else None if cache in (False, None) else cache
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
                self.ledger.record(_entry(result, run_id, label))
                return result

        litellm = _litellm()
        if provider in IN_PROCESS:
            _price_at_zero(litellm, model, provider)
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
            kwargs.setdefault("timeout", self.config.timeout_s)
            kwargs.setdefault("drop_params", True)
        response = self._call_with_retries(litellm, kwargs, provider, call_id, model, run_id, label, start)

        raw = _dump(response)
        raw.pop("_hidden_params", None)
        result = LLMResult.from_response(model, raw)
        result.cost = _cost(litellm, response, provider, params)
        result.latency_s = time.perf_counter() - start
        result.cache_key, result.call_id = key, call_id
        if store is not None:
            stored = {**raw, "_cost": result.cost}
            store.put(key, model, record, stored, result.tokens_in, result.tokens_out, result.cost)
        self.ledger.record(_entry(result, run_id, label))
        return result

    def _call_with_retries(
        self,
        litellm: Any,
        kwargs: dict[str, Any],
        provider: str,
        call_id: str,
        model: str,
        run_id: str | None,
        label: Purpose,
        start: float,
    ) -> Any:
        attempt = 0
        while True:
            try:
                with self.semaphore(provider), _logging_scope(litellm, provider):
                    return litellm.completion(**kwargs)
            except Exception as exc:
                if attempt >= self.config.max_retries or not _transient(exc, provider):
                    self.ledger.record(
                        LedgerEntry(
                            call_id=call_id,
                            run_id=run_id,
                            purpose=label.step,
                            tool=label.tool,
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
                delay = min(self.config.backoff_max, self.config.backoff_base * 2**attempt)
                delay *= 1 + random.uniform(0, self.config.jitter)
                log.info(
                    "transient %s from %s, retry %d in %.1fs", type(exc).__name__, model, attempt + 1, delay
                )
                self.config.sleep(delay)
                attempt += 1


_current = Gateway()
_setup_lock = threading.Lock()
_litellm_mod: Any = None
_priced: set[str] = set()  # in-process models entered in litellm's price map


@atexit.register
def _flush_at_exit() -> None:
    """Rows of the installed gateway's ledger that a process did not flush reach the warehouse."""
    try:
        _current.ledger.flush()
    except Exception:  # noqa: BLE001 - interpreter shutdown: best effort only
        pass


def current() -> Gateway:
    """The installed gateway (a plain in-memory one until an entry point installs its own)."""
    return _current


def use(gateway: Gateway) -> Gateway:
    """Install `gateway` for this process's calls; returns the previous one (to restore it)."""
    global _current
    previous, _current = _current, gateway
    return previous


@contextmanager
def using(gateway: Gateway) -> Iterator[Gateway]:
    """Install `gateway` for the duration of a block."""
    previous = use(gateway)
    try:
        yield gateway
    finally:
        use(previous)


def complete(model: str, messages: list[dict[str, Any]], **kwargs: Any) -> LLMResult:
    """`Gateway.complete` on the installed gateway (see there for the arguments)."""
    return _current.complete(model, messages, **kwargs)


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


def _price_at_zero(litellm: Any, model: str, provider: str) -> None:
    """Enter an in-process model in litellm's price map, once, at zero cost.

    litellm looks a model up in its price map several times per completion
    (cost, zero-cost diagnostics, Responses-API routing); for a name it does
    not know, each lookup fails through its fallback rules, which cost
    about half a millisecond per call. The entry holds prices only, so no
    capability litellm reads changes (an unknown model has none either).
    """
    if model in _priced:
        return
    with _setup_lock:
        if model in _priced:
            return
        zero = ("input_cost_per_token", "output_cost_per_token")
        zero += ("cache_creation_input_token_cost", "cache_read_input_token_cost")
        litellm.register_model({model: {**dict.fromkeys(zero, 0.0), "litellm_provider": provider}})
        _priced.add(model)


def _logging_scope(litellm: Any, provider: str) -> AbstractContextManager[Any]:
    """For an in-process call, litellm's own success logging is skipped when nobody listens to it.

    After every completion litellm hands a success handler to a thread pool
    that builds its standard logging payload and re-runs its cost
    diagnostics, for callbacks we never register. For a scripted or local
    model that was about 1.7 ms of CPU per call, a fifth of the framework's
    time per agent step; the gateway's ledger is what records our calls. It
    runs as before for hosted models, and for any call while a litellm
    callback is configured.
    """
    if provider not in IN_PROCESS or _litellm_callbacks(litellm):
        return nullcontext()
    try:
        from litellm._internal_context import internal_sub_call
    except ImportError:  # another litellm version: logging stays on
        return nullcontext()
    return internal_sub_call()


def _litellm_callbacks(litellm: Any) -> bool:
    names = ("callbacks", "success_callback", "_async_success_callback", "input_callback")
    return any(getattr(litellm, name, None) for name in names)


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


def _entry(result: LLMResult, run_id: str | None, label: Purpose) -> LedgerEntry:
    return LedgerEntry(
        call_id=result.call_id,
        run_id=run_id,
        purpose=label.step,
        tool=label.tool,
        model=result.model,
        tokens_in=result.tokens_in,
        tokens_out=result.tokens_out,
        cost=result.cost,
        latency_s=result.latency_s,
        cache_hit=result.cache_hit,
    )
