"""The package's shape: layers import only those below them, no import cycles, typer only
in the command line, no workload named in core."""
import ast
import re
from pathlib import Path

import pytest

import bwlab

PKG = Path(bwlab.__file__).parent
LAYERS = ["core", "workloads", "distributed", "lab", "report", "cli"]  # each may import only those before it


def _module(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    mod = _module(path).split(".")
    pkg = mod if path.name == "__init__.py" else mod[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg[: len(pkg) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
                out.add(name)
                out |= {f"{name}.{a.name}" for a in node.names}
            else:
                out.add(node.module)
    return out


FILES = sorted(PKG.rglob("*.py"))


def _layer(module: str):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_layers_import_only_downwards(path):
    mine = _layer(_module(path))
    if mine is None:
        return
    for imp in _imports(path):
        if imp.startswith("bwlab.") and _layer(imp):
            assert LAYERS.index(_layer(imp)) <= LAYERS.index(mine), f"{_module(path)} imports {imp}"
        if imp.split(".")[0] == "typer":
            assert mine == "cli", f"{_module(path)} imports typer"


def test_no_import_cycles():
    graph = {}
    known = {_module(p) for p in FILES}
    for path in FILES:
        mod = _module(path)
        ancestors = {".".join(mod.split(".")[:k]) for k in range(1, mod.count(".") + 1)}
        # a module's own parent packages are initialised before it: importing them adds no edge
        graph[mod] = {i for i in _imports(path) if i in known and i != mod and i not in ancestors}
    # the package __init__ re-exports the public API: follow only real module edges
    state = {}

    def visit(m, stack):
        state[m] = 1
        for n in graph.get(m, ()):
            if n == "bwlab":
                continue
            if state.get(n) == 1:
                raise AssertionError("import cycle: " + " -> ".join(stack + [n]))
            if n not in state:
                visit(n, stack + [n])
        state[m] = 2

    for m in graph:
        if m not in state:
            visit(m, [m])


def test_core_names_no_workload():
    from bwlab.workloads import NAMES

    for path in (PKG / "core").rglob("*"):
        if path.suffix in (".py", ".cu", ".cuh"):
            text = re.sub(r"# --- version 1.*?# --- end of version 1", "", path.read_text(), flags=re.S).lower()
            for name in NAMES:
                assert not re.search(rf"\b{name}\b", text), f"{path.name} names the {name} workload"


def test_no_module_shadows_the_standard_library():
    import sys

    for path in FILES:
        assert path.stem not in sys.stdlib_module_names or path.stem == "__init__", path
