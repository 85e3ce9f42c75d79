"""The house plan holds: layers import only downward, and no module takes part in an import cycle.

Imports are read from the source (module level and inside functions alike; a
lazy import is still a dependency), except those under `if TYPE_CHECKING:`.
The layers are the ones docs/architecture.md draws.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "core"

# Lower numbers are lower layers; a package may import its own layer's modules only within itself.
LAYERS: dict[str, int] = {
    "core": 0,
    "core.config": 0,
    "core.fields": 0,
    "core.tables": 0,
    "core.redaction": 0,
    "core.safeio": 0,
    "core.liveness": 0,
    "core.docs": 1,
    "core.sandbox": 1,
    "core.llm": 2,
    "core.warehouse": 2,
    "core.embed": 2,
    "core.mcp": 2,
    "core.benchmarks": 3,
    "core.retrieval": 3,
    "core.traces": 3,
    "core.agents": 4,
    "core.runner": 5,
    "core.evaluation": 6,
    "core.chisel": 7,
    "core.baselines": 7,
    "core.expansion": 7,
    "core.sop": 7,
    "core.study": 8,
    "core.reports": 9,
    "core.jobs": 9,
    "core.ui": 10,
    "core.sample": 11,
    "core.cli": 12,
}


def _modules() -> dict[str, Path]:
    out = {}
    for f in CORE.rglob("*.py"):
        parts = f.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = f
    return out


def _runtime_nodes(tree: ast.AST):
    """Every node except the bodies of `if TYPE_CHECKING:` blocks."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the project modules it imports (`from pkg import sub` points at `pkg.sub`, not `pkg`)."""
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "core":
                subs = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules]
                targets = subs if len(subs) == len(node.names) else [node.module, *subs]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.split(".")[0] == "core"]
            edges[name].update(t for t in targets if t in modules and t != name)
    return edges


def _package(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 1 else module


def test_every_package_has_a_layer():
    packages = {_package(m) for m in _modules()}
    assert packages <= set(LAYERS), (
        f"give these a layer in LAYERS and docs/architecture.md: {packages - set(LAYERS)}"
    )


def test_layers_import_only_downward():
    modules = _modules()
    broken = []
    for src, targets in _imports(modules).items():
        a = _package(src)
        for dst in targets:
            b = _package(dst)
            if a != b and LAYERS[b] >= LAYERS[a] and b != "core":
                broken.append(f"{src} ({LAYERS[a]}) imports {dst} ({LAYERS[b]})")
    assert not broken, "upward or sideways imports:\n" + "\n".join(sorted(broken))


def test_no_import_cycles():
    modules = _modules()
    edges = _imports(modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for m in sorted(modules):
        if m not in index:
            visit(m)
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_every_module_imports_in_a_fresh_interpreter():
    names = sorted(m for m in _modules() if not m.startswith("core.ui"))  # the UI needs a Streamlit runtime
    code = "import importlib, sys\nfor n in sys.argv[1:]:\n    importlib.import_module(n)\n"
    done = subprocess.run(
        [sys.executable, "-c", code, *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
