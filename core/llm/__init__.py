"""The single LLM gateway (over litellm), its cache, accounting and offline providers.

Every LLM call in the project goes through `complete()`, on the gateway an
entry point installed (`use(Gateway.for_warehouse(wh))`; a plain in-memory one
otherwise):

    from core.llm import complete, default_model
    result = complete(default_model(), messages, tools=tools, purpose="agent", run_id=run_id)
    result.content, result.tool_calls, result.tokens_in, result.cost, result.cache_hit

Models: any litellm model string; `local/qwen2.5-coder-0.5b` (offline, the default
target agent), `local/qwen2.5-coder-1.5b` (offline, the default optimizer),
`local/smollm2-135m` (offline, fast smoke tests);
`scripted/<name>` (tests, see `core.llm.scripted.script`). Importing this
package imports neither litellm nor llama.cpp and opens no connection.
"""

from core.llm.cache import CacheStore, MemoryCache, WarehouseCache, cache_key, request_record
from core.llm.gateway import (
    DEFAULT_MODEL,
    DEFAULT_OPTIMIZER_MODEL,
    Gateway,
    GatewayConfig,
    Purpose,
    complete,
    current,
    default_model,
    default_optimizer_model,
    provider_of,
    register_providers,
    use,
    using,
)
from core.llm.ledger import Ledger, LedgerEntry
from core.llm.scripted import ScriptedModel, script, tool_call
from core.llm.types import LLMResult, ToolCall


def model_identity(model: str) -> str:
    """What besides its name decides a model's replies: for a local model its weights file, llama.cpp
    version, grammar revision and prompt style (the cache salt without the CPU kernels); "" for hosted
    models, whose name is their identity. Part of an agent configuration's identity, so episodes
    stored with an older runtime are never reused as if a newer one had produced them."""
    if provider_of(model) != "local":
        return ""
    from core.llm.local import cache_salt

    return cache_salt(model, kernels=False)


__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_OPTIMIZER_MODEL",
    "CacheStore",
    "Gateway",
    "GatewayConfig",
    "LLMResult",
    "Ledger",
    "LedgerEntry",
    "MemoryCache",
    "Purpose",
    "ScriptedModel",
    "ToolCall",
    "WarehouseCache",
    "cache_key",
    "complete",
    "current",
    "default_model",
    "default_optimizer_model",
    "model_identity",
    "provider_of",
    "register_providers",
    "request_record",
    "script",
    "tool_call",
    "use",
    "using",
]
