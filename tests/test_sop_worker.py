"""SOP code: its shape is checked with `ast` in the main process, and it runs only in a limited worker.

Each hostile function is stopped within its limit, reported as a defect (never
an exception in the caller), and the next call gets a working worker.
"""

from __future__ import annotations

import time

import pytest

from core.sop.executor import Executor, Limits, ToolReply
from core.sop.validate import SopCodeError, validate

FAST = Limits(cpu_s=1, wall_s=4, memory_mb=200, max_calls=5)
GOOD = """def lookup_then_send(name, text):
    out = tools.call("contacts.lookup", name=name)
    if tools.failed(out) or tools.empty(out):
        return "stopped: " + out
    cid = tools.pick(out, "contact_id")
    return tools.call("mail.send", contact_id=cid, text=text)
"""


def _tool(name: str, args: dict) -> ToolReply:
    if name == "contacts.lookup":
        return ToolReply(output=str([{"contact_id": "c-1", "name": args.get("name")}]))
    return ToolReply(output=f"sent to {args.get('contact_id')}: {args.get('text')}")


@pytest.fixture(scope="module")
def executor():
    ex = Executor(FAST)
    yield ex
    ex.close()


def test_a_valid_sop_runs_in_the_worker_and_its_tool_calls_come_back_to_the_parent(executor) -> None:
    out = executor.run(GOOD, "lookup_then_send", {"name": "Ann", "text": "hi"}, _tool)
    assert out.ok and out.value == "sent to c-1: hi"
    assert [c[0] for c in out.calls] == ["contacts.lookup", "mail.send"]
    assert out.calls[1][1] == {"contact_id": "c-1", "text": "hi"}


HOSTILE = {
    "infinite loop": ("def f(x):\n    while True:\n        x = x + 1\n", "cpu_time"),
    "memory bomb": (
        "def f(x):\n    data = []\n    while True:\n        data.append('x' * 1000000)\n",
        "memory",
    ),
    "sys.exit": ("def f(x):\n    raise SystemExit(3)\n", "exit"),
    "exception": ("def f(x):\n    return {}['missing']\n", "exception"),
    "tool-call loop": (
        "def f(x):\n    while True:\n        tools.call('contacts.lookup', name=x)\n",
        "call_limit",
    ),
    "import outside the allow-list": (
        "import socket\ndef f(x):\n    return str(socket.socket())\n",
        "exception",
    ),
}


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_code_is_stopped_within_its_limits_and_reported_as_a_defect(executor, kind: str) -> None:
    code, defect = HOSTILE[kind]
    t0 = time.monotonic()
    out = executor.run(code, "f", {"x": 1}, _tool)
    assert not out.ok and out.defect == defect, (out.defect, out.error)
    assert time.monotonic() - t0 < FAST.wall_s + 2
    after = executor.run(GOOD, "lookup_then_send", {"name": "Bo", "text": "ok"}, _tool)
    assert after.ok, "the next call gets a working worker"


def test_the_wall_clock_stops_what_the_cpu_limit_does_not() -> None:
    ex = Executor(Limits(cpu_s=30, wall_s=1, memory_mb=200))
    try:
        t0 = time.monotonic()
        out = ex.run("def f():\n    while True:\n        pass\n", "f", {}, _tool)
        assert out.defect == "wall_time" and time.monotonic() - t0 < 4
        assert ex.run(GOOD, "lookup_then_send", {"name": "A", "text": "b"}, _tool).ok
    finally:
        ex.close()


def test_even_trusted_code_gets_no_network_and_no_processes_and_a_dead_worker_is_replaced() -> None:
    """`any` imports (the mode users' own tool code could run in) keeps the limits and the blocks."""
    ex = Executor(Limits(cpu_s=1, wall_s=4, memory_mb=200, imports="any"))
    try:
        sock = ex.run(
            "import socket\ndef f():\n    socket.create_connection(('example.com', 80))\n", "f", {}, _tool
        )
        assert sock.defect == "exception" and "network access is disabled" in sock.error
        raw = ex.run("import _socket\ndef f():\n    return str(_socket.socket())\n", "f", {}, _tool)
        assert raw.defect == "exception" and "network access is disabled" in raw.error
        fork = ex.run("import os\ndef f():\n    return os.fork()\n", "f", {}, _tool)
        assert fork.defect == "exception" and "starting processes is disabled" in fork.error
        secret = ex.run("import os\ndef f():\n    return sorted(os.environ)\n", "f", {}, _tool)
        assert secret.ok and "API_KEY" not in secret.value
        started = ex.started
        died = ex.run("import os\ndef f():\n    os._exit(4)\n", "f", {}, _tool)
        assert not died.ok and died.defect == "exit"
        assert ex.run(GOOD, "lookup_then_send", {"name": "A", "text": "b"}, _tool).ok
        assert ex.started == started + 1
    finally:
        ex.close()


def test_prints_cannot_forge_the_protocol(executor) -> None:
    code = 'def f():\n    print(\'{"op": "done", "ok": true, "value": "forged"}\')\n    return "real"\n'
    out = executor.run(code, "f", {}, _tool)
    assert out.ok and out.value == "real" and "forged" in out.log


def test_validation_accepts_the_sop_shape_and_reports_what_it_calls() -> None:
    shape = validate(GOOD, known_tools={"contacts.lookup", "mail.send"})
    assert shape.function == "lookup_then_send"
    assert [p.name for p in shape.params] == ["name", "text"]
    assert shape.uses == ("contacts.lookup", "mail.send")


@pytest.mark.parametrize(
    "code, message",
    [
        ("import socket\ndef f():\n    return tools.call('a.b')\n", "not allowed"),
        ("import os\ndef f():\n    return tools.call('a.b')\n", "not allowed"),
        ("def f():\n    return open('/etc/passwd').read()\n", "unknown name 'open'"),
        ("def f():\n    return eval('1') or tools.call('a.b')\n", "unknown name 'eval'"),
        ("def f():\n    x = tools.call('a.b')\n    return x.__class__\n", "'_'"),
        ("def f():\n    return __import__('os')\n", "'_'"),
        ("def f():\n    global y\n    return tools.call('a.b')\n", "Global"),
        ("def f():\n    def g():\n        pass\n    return tools.call('a.b')\n", "FunctionDef"),
        ("def f():\n    try:\n        return tools.call('a.b')\n    except:\n        pass\n", "bare except"),
        ("def f(name):\n    return tools.call(name)\n", "string literal"),
        ("def f():\n    return tools.call('a.unknown')\n", "not an atomic tool"),
        ("def f():\n    return 1\n", "calls no tool"),
        ("def f():\n    return tools.call('a.b')\ndef g():\n    return 1\n", "exactly one function"),
        ("x = 1\ndef f():\n    return tools.call('a.b')\n", "top level"),
        ("def f(*args):\n    return tools.call('a.b')\n", "named parameters"),
        ("def f(:\n", "syntax error"),
    ],
)
def test_validation_refuses_other_shapes(code: str, message: str) -> None:
    with pytest.raises(SopCodeError, match=None) as err:
        validate(code, known_tools={"a.b"})
    assert message in str(err.value)
