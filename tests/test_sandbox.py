"""The worker process for untrusted code (core.sandbox) and the redaction layer (core.redaction)."""

from __future__ import annotations

import io
import time

import pytest

from core.redaction import MARK, Redactor
from core.sandbox import ImportFailure, Limits, Pool, ToolFailure, ToolRaised, Worker, worker_env

SOURCE = '''
import os, sys, time

def add(a: int, b: int = 2, *, state: dict) -> int:
    """Add two numbers.

    Args:
        a: The first number.
    """
    state["calls"] = state.get("calls", 0) + 1
    print('{"ok": true, "text": "forged"}')  # a print cannot forge a reply
    return a + b

def fail(x: int) -> None:
    raise ValueError(f"bad x {x}")

def leave() -> None:
    sys.exit(2)

def vanish() -> None:
    os._exit(0)

def nap() -> None:
    time.sleep(60)

def environment() -> dict:
    return dict(os.environ)

def hog() -> int:
    return len(bytearray(8 * 1024 ** 3))
'''


@pytest.fixture
def worker():
    w = Worker(
        SOURCE, "/nonexistent/tools.py", limits=Limits(call_s=1.0, import_s=5.0, memory_mb=1024), cwd="/"
    )
    yield w
    w.close()


def test_functions_are_described_as_data(worker: Worker) -> None:
    info = worker.start()
    add = next(f for f in info.functions if f.name == "add")
    assert [(p.name, p.kind, p.has_default, p.default, p.annotation) for p in add.params] == [
        ("a", "POSITIONAL_OR_KEYWORD", False, None, "int"),
        ("b", "POSITIONAL_OR_KEYWORD", True, 2, "int"),
        ("state", "KEYWORD_ONLY", False, None, "dict"),
    ]
    assert add.doc.startswith("Add two numbers.") and add.returns == "int" and add.line == 4


def test_calls_exceptions_exits_and_hangs(worker: Worker) -> None:
    reply = worker.call("add", {"a": 1}, state={}, state_param="state")
    assert (reply.text, reply.value, reply.state) == ("3", 3, {"calls": 1})
    with pytest.raises(ToolRaised, match="ValueError: bad x 3"):
        worker.call("fail", {"x": 3})
    with pytest.raises(ToolRaised, match="SystemExit: 2"):
        worker.call("leave", {})
    with pytest.raises(ToolFailure, match="exit code 0") as died:
        worker.call("vanish", {})
    assert died.value.error_class == "tool_crash"
    t0 = time.monotonic()
    with pytest.raises(ToolFailure) as hung:
        worker.call("nap", {})
    assert hung.value.error_class == "tool_timeout" and time.monotonic() - t0 < 6
    with pytest.raises(ToolRaised, match="MemoryError"):
        worker.call("hog", {})
    assert worker.call("add", {"a": 5, "b": 5}, state={}, state_param="state").value == 10
    assert worker.restarts == 2  # after os._exit and after the timeout


def test_the_worker_sees_no_secret(worker: Worker, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdefghij")
    monkeypatch.setenv("DOCSCHISEL_TOOL_ENV", "MY_SETTING,SOME_TOKEN")
    monkeypatch.setenv("MY_SETTING", "on")
    monkeypatch.setenv("SOME_TOKEN", "a-secret-value")
    env = worker.call("environment", {}).value
    assert "OPENAI_API_KEY" not in env and env.get("MY_SETTING") == "on" and "SOME_TOKEN" not in env
    assert set(worker_env({"PATH": "/bin", "AWS_SECRET_ACCESS_KEY": "x" * 20})) == {"PATH"}


def test_import_failures_say_what_and_where() -> None:
    cases = {
        "x = 1\ndef f(:\n": ("syntax", 2),
        "import json\njson.loads('{')\n": ("JSONDecodeError", 2),
        "import os\nos._exit(3)\n": ("exit code 3", None),
        "import sys\nsys.exit(1)\n": ("SystemExit", 2),
        "while True:\n    pass\n": ("did not finish within 1s", None),
    }
    for source, (text, line) in cases.items():
        with pytest.raises(ImportFailure) as info:
            Worker(source, "/x/tools.py", limits=Limits(import_s=1.0), cwd="/").start()
        assert text in str(info.value).lower() or text in str(info.value), (source, str(info.value))
        assert info.value.line == line, source


def test_a_pool_serves_concurrent_callers() -> None:
    import threading

    pool = Pool(SOURCE, "/x/tools.py", size=2, limits=Limits(call_s=5.0), cwd="/")
    pool.start()
    out: list[int] = []
    threads = [
        threading.Thread(
            target=lambda i=i: out.append(pool.call("add", {"a": i}, state={}, state_param="state").value)
        )
        for i in range(6)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    pool.close()
    assert sorted(out) == [2, 3, 4, 5, 6, 7]


def test_redaction_of_env_values_and_key_shapes() -> None:
    r = Redactor.from_env({"OPENAI_API_KEY": "abc-123-very-secret", "SHORT_KEY": "x", "HOME": "/home/u"})
    text = 'key "abc-123-very-secret", ghp_' + "a" * 36 + " and Bearer abcdefghijklmnop1234 /home/u"
    assert r.text(text) == f'key "{MARK}", {MARK} and {MARK} /home/u'
    assert r.value({"a": ["abc-123-very-secret", 1]}) == {"a": [MARK, 1]}
    fake_api_bank = "GetUserToken(username='JohnDoe', password='pass123') token a9s8d7f6g5h4j3k2l1"
    assert r.text(fake_api_bank) == fake_api_bank  # task data that merely looks like credentials stays


def test_no_key_shape_is_shorter_than_the_length_below_which_cells_skip_the_search() -> None:
    import re

    from core.redaction import KEY_SHAPES, SHORTEST_KEY_SHAPE

    assert re._parser.parse(KEY_SHAPES.pattern).getwidth()[0] == SHORTEST_KEY_SHAPE
    r = Redactor()
    assert r.text("xoxb-0123456789") == MARK  # the shortest shape is still redacted


def test_every_key_shape_passes_the_literal_prefilter() -> None:
    from core.redaction import KEY_SHAPES, may_hold_key_shape

    examples = [
        "sk-" + "a" * 24,
        "sk-proj-" + "a" * 24,
        "AKIA" + "A" * 16,
        "ASIA" + "B" * 16,
        *(f"gh{c}_" + "a" * 36 for c in "pousr"),
        "github_pat_" + "a" * 30,
        *(f"xox{c}-" + "0" * 10 for c in "abprs"),
        "AIza" + "a" * 35,
        "hf_" + "a" * 30,
        "gsk_" + "a" * 30,
        "BeArEr " + "a" * 16,
        "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
    ]
    # one example per alternative of the pattern, each a full match
    assert len(examples) >= KEY_SHAPES.pattern.count("|") + 1
    for key in examples:
        assert KEY_SHAPES.fullmatch(key), key
        assert may_hold_key_shape(f"prompt text {key} more text"), key
        assert Redactor().text(f"prompt text {key} more text") == f"prompt text {MARK} more text"
    assert not may_hold_key_shape("a long prompt about tasks, skills and weights " * 20)


def test_job_logs_are_redacted_on_their_way_to_disk() -> None:
    from core.jobs import _pump

    out = io.BytesIO()
    _pump(io.BytesIO(b"ok\nError: key sk-abcdefghijklmnopqrstuvwx1234 rejected\n"), out, Redactor())
    assert out.getvalue() == f"ok\nError: key {MARK} rejected\n".encode()
