"""Which environment variables a model needs: its provider's key and endpoint, by name.

Why: a background job must get the key of the model it runs and nothing else
(a job started from the dashboard must not be a way to spend, or print, every
key the server holds). The table names the variables litellm reads for the
common providers; an unknown provider `acme/...` gets `ACME_API_KEY` and
`ACME_API_BASE`, litellm's convention. In-process models (`local/`,
`scripted/`) need none.
"""

from __future__ import annotations

from collections.abc import Iterable

_PROVIDERS: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "OPENAI_ORGANIZATION"),
    "text-completion-openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE"),
    "anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_API_BASE"),
    "azure": ("AZURE_API_KEY", "AZURE_API_BASE", "AZURE_API_VERSION", "AZURE_AD_TOKEN"),
    "gemini": ("GEMINI_API_KEY",),
    "vertex_ai": ("GOOGLE_APPLICATION_CREDENTIALS", "VERTEXAI_PROJECT", "VERTEXAI_LOCATION"),
    "bedrock": ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION_NAME"),
    "mistral": ("MISTRAL_API_KEY",),
    "groq": ("GROQ_API_KEY",),
    "cohere": ("COHERE_API_KEY",),
    "together_ai": ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY"),
    "openrouter": ("OPENROUTER_API_KEY", "OPENROUTER_API_BASE"),
    "deepseek": ("DEEPSEEK_API_KEY",),
    "xai": ("XAI_API_KEY",),
    "fireworks_ai": ("FIREWORKS_API_KEY", "FIREWORKS_AI_API_KEY"),
    "huggingface": ("HF_TOKEN", "HUGGINGFACE_API_KEY", "HUGGINGFACE_API_BASE"),
    "ollama": ("OLLAMA_API_BASE",),
    "ollama_chat": ("OLLAMA_API_BASE",),
    "hosted_vllm": ("HOSTED_VLLM_API_BASE", "HOSTED_VLLM_API_KEY"),
    "vllm": ("VLLM_API_BASE",),
}
IN_PROCESS = ("local", "scripted")


def provider(model: str) -> str:
    """The litellm provider of a model string (a bare name such as `gpt-4o` is OpenAI's)."""
    return model.split("/", 1)[0] if "/" in model else "openai"


def env_names(model: str) -> tuple[str, ...]:
    """The environment variables `model` needs (none for in-process models)."""
    p = provider(model.strip())
    if not p or p in IN_PROCESS or p == "evidence":
        return ()
    if p in _PROVIDERS:
        return _PROVIDERS[p]
    stem = "".join(c if c.isalnum() else "_" for c in p).upper()
    return (f"{stem}_API_KEY", f"{stem}_API_BASE")


def env_names_for(models: Iterable[str]) -> tuple[str, ...]:
    """The union of `env_names` over several models, in first-seen order."""
    out: dict[str, None] = {}
    for m in models:
        for name in env_names(m):
            out[name] = None
    return tuple(out)
