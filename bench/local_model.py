"""Measure the offline backbone: load time, tokens/s, seconds per tool call, RSS, tool accuracy.

    python bench/local_model.py                 # defaults: 10 single-step tool requests
    python bench/local_model.py --no-descriptions   # same requests, tool descriptions stripped

Every request goes through the gateway (`core.llm.complete`, cache off), i.e.
litellm -> the `local` custom provider -> llama.cpp with a grammar, exactly as
agents call it. Accuracy is single-step only: right tool, and right arguments
(case-insensitive exact match of the expected values).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _tool(name: str, description: str, params: dict[str, tuple[str, str]], required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {k: {"type": t, "description": d} for k, (t, d) in params.items()},
                "required": required,
            },
        },
    }


TOOLS = [
    _tool(
        "get_weather",
        "Get the current weather for a city.",
        {"city": ("string", "Name of the city")},
        ["city"],
    ),
    _tool(
        "send_email",
        "Send an email to a recipient.",
        {
            "recipient": ("string", "Email address of the recipient"),
            "subject": ("string", "Subject line"),
            "body": ("string", "Text of the email"),
        },
        ["recipient", "subject", "body"],
    ),
    _tool(
        "create_event",
        "Create a calendar event.",
        {
            "title": ("string", "Title of the event"),
            "date": ("string", "Date as YYYY-MM-DD"),
            "duration_minutes": ("integer", "Length of the event in minutes"),
        },
        ["title", "date"],
    ),
    _tool(
        "convert_currency",
        "Convert an amount of money from one currency to another.",
        {
            "amount": ("number", "Amount to convert"),
            "from_currency": ("string", "Three-letter code of the source currency"),
            "to_currency": ("string", "Three-letter code of the target currency"),
        },
        ["amount", "from_currency", "to_currency"],
    ),
]

REQUESTS = [
    ("What's the weather like in Paris right now?", "get_weather", {"city": "Paris"}),
    ("Is it raining in Tokyo?", "get_weather", {"city": "Tokyo"}),
    (
        "Email bob@example.com with subject 'Lunch' and say 'See you at noon'.",
        "send_email",
        {"recipient": "bob@example.com", "subject": "Lunch"},
    ),
    (
        "Send an email to ann@corp.com, subject Report, body: the report is attached.",
        "send_email",
        {"recipient": "ann@corp.com", "subject": "Report"},
    ),
    (
        "Create an event called Team sync on 2024-05-02 lasting 30 minutes.",
        "create_event",
        {"title": "Team sync", "date": "2024-05-02"},
    ),
    (
        "Put 'Dentist' in my calendar for 2024-06-11.",
        "create_event",
        {"title": "Dentist", "date": "2024-06-11"},
    ),
    (
        "Convert 100 USD to EUR.",
        "convert_currency",
        {"amount": 100, "from_currency": "USD", "to_currency": "EUR"},
    ),
    (
        "How many yen is 50 GBP?",
        "convert_currency",
        {"amount": 50, "from_currency": "GBP", "to_currency": "JPY"},
    ),
    ("What's the temperature in Berlin?", "get_weather", {"city": "Berlin"}),
    (
        "Schedule Budget review on 2024-07-01.",
        "create_event",
        {"title": "Budget review", "date": "2024-07-01"},
    ),
]


def rss_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _norm(v: object) -> object:
    return v.strip().lower() if isinstance(v, str) else v


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=len(REQUESTS), help="how many tool requests")
    ap.add_argument("--no-descriptions", action="store_true", help="strip tool and parameter descriptions")
    ap.add_argument("--repeat-penalty", type=float, default=None)
    args = ap.parse_args(argv)

    from core.llm import complete
    from core.llm.local import LocalModelUnavailable, ensure_available, runtime

    try:
        ensure_available()
    except LocalModelUnavailable as exc:
        print(f"local model unavailable: {exc}")
        return 2
    base_rss = rss_mb()
    rt = runtime()
    print(
        f"load_s            {rt.load_s:.2f} (threads {rt.llm.n_threads}, load average {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    print(f"rss_mb            {rss_mb():.0f} (process before load {base_rss:.0f})", flush=True)

    prompt, _ = rt.prompt([{"role": "user", "content": "Write a short story about a lighthouse keeper."}])
    rt.generate(prompt, grammar=None, max_tokens=8, temperature=0.0, seed=0, stop=rt.stop)  # warm-up
    t = time.perf_counter()
    out = rt.generate(prompt, grammar=None, max_tokens=128, temperature=0.0, seed=0, stop=rt.stop)
    dt = time.perf_counter() - t
    n_out = out["usage"]["completion_tokens"]
    print(
        f"tokens_per_s      {n_out / dt:.1f} ({n_out} tokens, prompt {out['usage']['prompt_tokens']}, plain)",
        flush=True,
    )

    from core.llm import register_providers

    t = time.perf_counter()
    register_providers()  # imports litellm once, so the first timed call does not pay for it
    print(f"litellm_import_s  {time.perf_counter() - t:.2f}", flush=True)

    tools = json.loads(json.dumps(TOOLS))
    if args.no_descriptions:
        for tool in tools:
            tool["function"].pop("description", None)
            for p in tool["function"]["parameters"]["properties"].values():
                p.pop("description", None)
    extra = {"repeat_penalty": args.repeat_penalty} if args.repeat_penalty else {}
    times, right_tool, right_args, well_formed = [], 0, 0, 0
    for query, tool, expected in REQUESTS[: args.n]:
        t = time.perf_counter()
        r = complete(
            "local/smollm2-135m",
            [{"role": "user", "content": query}],
            tools=tools,
            cache=False,
            purpose="bench",
            **extra,
        )
        times.append(time.perf_counter() - t)
        call = r.tool_calls[0] if r.tool_calls else None
        well_formed += bool(call and call.parse_error is None)
        ok_tool = bool(call and call.name == tool)
        ok_args = ok_tool and all(_norm(call.arguments.get(k)) == _norm(v) for k, v in expected.items())
        right_tool += ok_tool
        right_args += ok_args
        got = f"{call.name}({json.dumps(call.arguments)})" if call else f"answer: {r.content!r}"
        mark = "ok " if ok_args else "T  " if ok_tool else "x  "
        print(f"  {mark}{times[-1]:5.2f}s {r.tokens_out:3d} tok  {query[:48]:48}  -> {got[:110]}", flush=True)
    n = len(times)
    print(f"s_per_tool_call   {sum(times) / n:.2f} (min {min(times):.2f}, max {max(times):.2f})")
    print(f"well_formed       {well_formed}/{n}")
    print(f"right_tool        {right_tool}/{n}")
    print(f"right_args        {right_args}/{n}")
    print(f"rss_mb_final      {rss_mb():.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
