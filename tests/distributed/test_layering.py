"""bwlab.distributed sits between the workloads and the lab: it imports only core, workloads and
itself, never typer; importing bwlab or bwlab.distributed does not import torch."""
import ast
import subprocess
import sys
from pathlib import Path

import bwlab

PKG = Path(bwlab.__file__).parent / "distributed"


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                yield "bwlab.distributed." + (node.module or "")
            elif node.level == 2:
                yield "bwlab." + (node.module or "")
            elif node.level > 2:
                yield "bwlab.." + (node.module or "")
            else:
                yield node.module
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def test_imports_only_lower_layers():
    allowed = ("bwlab.core", "bwlab.workloads", "bwlab.distributed")
    for path in sorted(PKG.glob("*.py")):
        for imp in _imports(path):
            assert not imp.startswith("bwlab..") and imp.split(".")[0] != "typer", f"{path.name} imports {imp}"
            if imp.startswith("bwlab."):
                assert imp.startswith(allowed), f"{path.name} imports {imp}"


def test_import_is_free_of_torch():
    code = "import sys, bwlab, bwlab.distributed, bwlab.cli; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "False"
