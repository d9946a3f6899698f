"""No backend imports another (issue #10): what two backends share lives in ``backends/common``
(every backend) or ``backends/apple`` (the Metal targets), and the CFG / call-graph analyses in
``cumetal.ir.analysis``. The AIR simulator uses no type of the CPU engine. Imports are read from
the source (``import`` statements anywhere in a module, lazy ones included)."""

from __future__ import annotations

import ast
from pathlib import Path

import cumetal

BACKENDS = Path(cumetal.__file__).resolve().parent / "backends"
SHARED = {"common", "apple"}  # packages any backend may import ('apple': the Metal targets only)
APPLE_TARGETS = {"air", "msl"}


def _imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names if node.module == "cumetal.backends"]
    return out


def _backend_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[:2] != ["cumetal", "backends"] or len(parts) < 3:
        return None
    return parts[2]


def violations() -> list[str]:
    bad = []
    for path in sorted(BACKENDS.rglob("*.py")):
        rel = path.relative_to(BACKENDS)
        if len(rel.parts) < 2:
            continue  # backends/__init__.py, backends/coverage.py and the like: not a backend
        mine = rel.parts[0]
        for line, module in _imports(path):
            other = _backend_of(module)
            if other is None or other == mine or other in SHARED and (other != "apple" or mine in APPLE_TARGETS | SHARED):
                continue
            if mine in SHARED and other not in SHARED:
                bad.append(f"backends/{rel}:{line}: shared package imports backend {other} ({module})")
            else:
                bad.append(f"backends/{rel}:{line}: backend {mine} imports {module}")
    return bad


def test_no_backend_imports_another():
    assert violations() == []


def test_the_shared_packages_import_no_backend():
    for pkg in SHARED:
        for path in (BACKENDS / pkg).rglob("*.py"):
            assert all(_backend_of(m) in (None, *SHARED) for _, m in _imports(path)), path


def test_air_sim_uses_no_cpu_engine_type():
    sim = BACKENDS / "air" / "sim"
    assert not [m for p in sim.rglob("*.py") for _, m in _imports(p) if m.startswith("cumetal.backends.cpu")]


def test_the_check_sees_a_violation(tmp_path):
    """The scan itself works: a backend file importing another backend is reported."""
    fake = tmp_path / "backends"
    (fake / "air").mkdir(parents=True)
    (fake / "air" / "x.py").write_text("def f():\n    from cumetal.backends.msl.printf import decode_ring\n")
    (fake / "cpu").mkdir()
    (fake / "cpu" / "y.py").write_text("from cumetal.backends.apple import abi\nfrom cumetal.backends.common import codes\n")
    globals()["BACKENDS"] = fake
    try:
        found = violations()
    finally:
        globals()["BACKENDS"] = Path(cumetal.__file__).resolve().parent / "backends"
    assert found == ["backends/air/x.py:2: backend air imports cumetal.backends.msl.printf",
                     "backends/cpu/y.py:1: backend cpu imports cumetal.backends.apple"]


def test_driver_reads_no_ir_nodes():
    """The driver asks the loaded image (ModuleImage.kernel_names / kernel / const_bytes /
    failed_kernels) instead of reading IR nodes."""
    driver = BACKENDS.parent / "driver"
    found = []
    for path in sorted(driver.glob("*.py")):
        text = path.read_text()
        found += [f"{path.name}: imports {m}" for _, m in _imports(path) if m.startswith("cumetal.ir")]
        found += [f"{path.name}: reads image.module" for _ in range(text.count("image.module"))]
    assert found == []
