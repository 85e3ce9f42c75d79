"""Importing the package (and litellm through it) must not open any network connection."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GUARDED = r"""
import json, socket
attempts = []

def refuse(*args, **kwargs):
    attempts.append(repr(args)[:200])
    raise OSError("network disabled by test")

socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse

import core
import core.llm
import os, sys
state = {"env": os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP"), "litellm_loaded_by_import": "litellm" in sys.modules}
from core.llm import complete, script, tool_call
core.llm.register_providers()
m = script([tool_call("f", a=1)])
r = complete(m.model, [{"role": "user", "content": "hi"}])
state["tool"] = r.tool_calls[0].name
r = complete("gpt-4o-mini", [{"role": "user", "content": "hi"}], mock_response="ok")
state["mock"] = r.content
import core.llm.langchain  # LangChain + langchain-litellm, after `import core`
import core.llm.local
state["attempts"] = attempts
print("STATE" + json.dumps(state))
"""


def test_import_and_offline_calls_open_no_socket():
    env = {k: v for k, v in os.environ.items() if k != "LITELLM_LOCAL_MODEL_COST_MAP"}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-c", GUARDED], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("STATE"))
    state = json.loads(line[len("STATE") :])
    assert state["env"] == "True"
    assert state["litellm_loaded_by_import"] is False
    assert state["tool"] == "f" and state["mock"] == "ok"
    assert state["attempts"] == []
