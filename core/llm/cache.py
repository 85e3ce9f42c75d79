"""The response cache: keys, the store protocol, and two stores.

Why: experiments repeat the same prompts (re-runs, resumed runs, ablations
that share a baseline). A key is a hash of everything that affects the
output, so a repeated call is served without reaching the provider, and a
change to any input (a doc edit changes the tools) is a miss. Secrets never
enter a key or a stored row: keys are computed from a sanitised request, and
stored rows are scrubbed of any value found in secret-looking environment
variables.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import threading
from typing import Any, Protocol, runtime_checkable

# Parameters that change how a request travels, not what comes back; or that carry secrets.
_SECRET_PARAMS = {
    "api_key",
    "api_base",
    "base_url",
    "api_version",
    "organization",
    "headers",
    "extra_headers",
    "aws_access_key_id",
    "aws_secret_access_key",
    "aws_session_token",
    "azure_ad_token",
    "vertex_credentials",
    "client",
}
_TRANSPORT_PARAMS = {
    "timeout",
    "num_retries",
    "max_retries",
    "metadata",
    "stream",
    "litellm_logging_obj",
    "logger_fn",
    "caching",
}
log = logging.getLogger(__name__)
_SECRET_ENV = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)
KEY_VERSION = "v1"


def sanitize_params(params: dict[str, Any]) -> dict[str, Any]:
    """Drop secret-bearing and transport-only parameters."""
    return {k: v for k, v in params.items() if k not in _SECRET_PARAMS and k not in _TRANSPORT_PARAMS}


def _canonical(value: Any) -> Any:
    """JSON-ready form of request parts (pydantic models and classes become their schema/dump)."""
    if hasattr(value, "model_dump") and not isinstance(value, type):
        return value.model_dump()
    if isinstance(value, type) and hasattr(value, "model_json_schema"):
        return {"pydantic": value.__name__, "schema": value.model_json_schema()}
    if isinstance(value, BaseException):
        return {"exception": type(value).__name__, "message": str(value)}
    return value


def request_record(
    model: str,
    messages: list[dict[str, Any]],
    *,
    tools: Any = None,
    tool_choice: Any = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
    seed: int | None = None,
    salt: str = "",
    **params: Any,
) -> dict[str, Any]:
    """The sanitised description of a request: what the key hashes and what the cache stores."""
    rec: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "tools": tools,
        "tool_choice": tool_choice,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "seed": seed,
        "params": {k: _canonical(v) for k, v in sorted(sanitize_params(params).items())},
    }
    if salt:
        rec["provider_salt"] = salt
    return rec


def cache_key(record: dict[str, Any]) -> str:
    """Stable sha256 of a request record (sorted keys, no whitespace)."""
    payload = json.dumps(
        [KEY_VERSION, record], sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":")
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@functools.lru_cache(maxsize=4096)
def _secret_name(name: str) -> bool:
    return _SECRET_ENV.search(name) is not None


def secret_values() -> list[str]:
    """Values of environment variables whose names look secret (long enough to be real).

    Read afresh on every call (a key set later is scrubbed too); only the
    verdict on each variable name is remembered, because matching every name
    against the pattern on every LLM call cost a tenth of a millisecond.
    """
    env = os.environ  # names first: reading a value decodes it, and most are not secret
    values = (env.get(k) for k in list(env) if _secret_name(k))
    return sorted((v for v in values if v and len(v) >= 8), key=len, reverse=True)


def scrub(value: Any) -> Any:
    """Replace any secret environment value appearing anywhere inside `value`."""
    secrets = secret_values()
    if not secrets:
        return value
    text = json.dumps(value, ensure_ascii=False, default=str)
    if not any(s in text for s in secrets):
        return value
    for s in secrets:
        text = text.replace(json.dumps(s)[1:-1], "[redacted]")
    return json.loads(text)


@runtime_checkable
class CacheStore(Protocol):
    """Where cached responses live. `get` returns the stored response dict or None."""

    def get(self, key: str) -> dict[str, Any] | None: ...

    def put(
        self,
        key: str,
        model: str,
        request: dict[str, Any],
        response: dict[str, Any],
        tokens_in: int,
        tokens_out: int,
        cost: float,
    ) -> None: ...


class MemoryCache:
    """A per-process dict cache; the default, and what tests use."""

    def __init__(self) -> None:
        self._rows: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._rows.get(key)
        return json.loads(json.dumps(row["response"])) if row else None

    def put(
        self,
        key: str,
        model: str,
        request: dict[str, Any],
        response: dict[str, Any],
        tokens_in: int,
        tokens_out: int,
        cost: float,
    ) -> None:
        row = scrub(
            {
                "key": key,
                "model": model,
                "request": request,
                "response": response,
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
                "cost": cost,
            }
        )
        with self._lock:
            self._rows.setdefault(key, row)

    def rows(self) -> list[dict[str, Any]]:
        """Stored rows (for inspection and tests)."""
        with self._lock:
            return list(self._rows.values())

    def __len__(self) -> int:
        return len(self._rows)

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()


class WarehouseCache:
    """The persistent cache: the warehouse's `llm_cache` table.

    Expects an object with `llm_cache_get(key)` and `llm_cache_put(row)`
    (core.warehouse.Warehouse). A warehouse error on read is a miss and on
    write is ignored: the cache must never fail a call.
    """

    def __init__(self, warehouse: Any) -> None:
        self.warehouse = warehouse

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            return self.warehouse.llm_cache_get(key)
        except Exception as exc:  # noqa: BLE001 - a cache read failure is a miss
            log.warning("LLM cache read failed (treated as a miss): %s", exc)
            return None

    def put(
        self,
        key: str,
        model: str,
        request: dict[str, Any],
        response: dict[str, Any],
        tokens_in: int,
        tokens_out: int,
        cost: float,
    ) -> None:
        row = scrub(
            {
                "key": key,
                "model": model,
                "request": request,
                "response": response,
                "tokens_in": tokens_in,
                "tokens_out": tokens_out,
                "cost": cost,
            }
        )
        try:
            self.warehouse.llm_cache_put(row)
        except Exception as exc:  # noqa: BLE001 - losing a cache row costs a re-call, not a result
            log.warning("LLM cache write failed (the reply is still returned): %s", exc)
