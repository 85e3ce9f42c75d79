"""The single LLM gateway (over litellm), its cache, accounting and offline providers.

Every LLM call in the project goes through `complete()`:

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
    CONFIG,
    DEFAULT_MODEL,
    DEFAULT_OPTIMIZER_MODEL,
    GatewayConfig,
    complete,
    configure,
    default_model,
    default_optimizer_model,
    get_cache,
    provider_of,
    register_providers,
    set_cache,
)
from core.llm.ledger import LEDGER, Ledger, LedgerEntry, set_sink
from core.llm.scripted import ScriptedModel, script, tool_call
from core.llm.types import LLMResult, ToolCall

__all__ = [
    "CONFIG",
    "DEFAULT_MODEL",
    "DEFAULT_OPTIMIZER_MODEL",
    "LEDGER",
    "CacheStore",
    "GatewayConfig",
    "LLMResult",
    "Ledger",
    "LedgerEntry",
    "MemoryCache",
    "ScriptedModel",
    "ToolCall",
    "WarehouseCache",
    "cache_key",
    "complete",
    "configure",
    "default_model",
    "default_optimizer_model",
    "get_cache",
    "provider_of",
    "register_providers",
    "request_record",
    "script",
    "set_cache",
    "set_sink",
    "tool_call",
]
