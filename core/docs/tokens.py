"""Documentation length in tokens, the cost side of the method (ties go to the shortest doc).

Counting goes through litellm's `token_counter`, which uses the tiktoken
encodings bundled inside litellm. `import core` sets the offline cost map and
HF_HUB_OFFLINE, and this module sets LITELLM_OFFLINE_MODE, so no count ever
reaches for the network: models whose tokenizer litellm would download (Llama,
Cohere) fall back to the bundled tiktoken encoding; Claude and DeepSeek use the
tokenizers litellm bundles.
"""

from __future__ import annotations

import os
from functools import lru_cache

import core  # noqa: F401  (sets LITELLM_LOCAL_MODEL_COST_MAP before litellm is imported)
from core.docs.model import ToolDoc

DEFAULT_MODEL = "gpt-4o"
# litellm reads this at call time: never download a tokenizer, use the bundled ones or tiktoken.
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")


@lru_cache(maxsize=4096)
def _count(text: str, model: str) -> int:
    import litellm

    return int(litellm.token_counter(model=model, text=text))


def token_length(text_or_doc: str | ToolDoc, model: str = DEFAULT_MODEL) -> int:
    """Tokens of a text, or of a ToolDoc rendered as prompt text (`render_text`)."""
    if isinstance(text_or_doc, ToolDoc):
        from core.docs.render import render_text

        text = render_text(text_or_doc)
    else:
        text = text_or_doc
    if not text:
        return 0
    return _count(text, model)
