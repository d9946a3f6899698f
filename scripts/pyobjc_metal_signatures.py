"""Extract the PyObjC signatures of the Metal selectors CuMetal sends, from the macOS wheel of
pyobjc-framework-Metal (it unpacks on Linux), and print them as the table kept in
tests/devices/metal_signatures.py (or --check that table against the wheel).

    pip download --no-deps --only-binary=:all: --platform macosx_14_0_arm64 \
        --python-version 3.12 pyobjc-framework-Metal -d /tmp/pyobjc
    python scripts/pyobjc_metal_signatures.py /tmp/pyobjc/pyobjc_framework_metal-*.whl [--check]

The wheel's Metal/_metadata.py registers each selector with ``r(b"NSObject", b"selector", {...})``:
``retval``/``arguments`` give Objective-C type codes (argument 2 is the first explicit one);
``type_modifier`` ``o`` marks an out-parameter (PyObjC: pass None, get a ``(result, out)`` tuple),
``n`` an input buffer. The file is read as text and parsed with ``ast`` (nothing of it is run).
"""

from __future__ import annotations

import ast
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "devices"))

from metal_signatures import SIGNATURES  # noqa: E402


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "r" and len(node.args) == 3:
            cls, sel, meta = node.args
            if isinstance(sel, ast.Constant) and isinstance(meta, ast.Dict):
                try:
                    yield sel.value.decode(), ast.literal_eval(meta)
                except ValueError:
                    continue


def extract(wheel: Path) -> dict[str, tuple[str, tuple[str, ...]]]:
    with zipfile.ZipFile(wheel) as z:
        text = z.read("Metal/_metadata.py").decode()
    found: dict[str, tuple[str, tuple[str, ...]]] = {}
    for sel, meta in _calls(ast.parse(text)):
        if sel not in SIGNATURES or sel in found:
            continue
        ret = meta.get("retval", {}).get("type", b"")
        ret = ret.decode() if isinstance(ret, bytes) else str(ret)
        args = []
        for i in range(2, 2 + sel.count(":")):
            a = meta.get("arguments", {}).get(i, {})
            code = a.get("type", b"")
            code = code.decode() if isinstance(code, bytes) else str(code)
            mod = a.get("type_modifier", b"")
            mod = mod.decode() if isinstance(mod, bytes) else str(mod)
            args.append(code + (":" + mod if mod else ""))
        found[sel] = (ret, tuple(args))
    return found


def main() -> int:
    wheel = Path(sys.argv[1])
    found = extract(wheel)
    if "--check" in sys.argv:
        bad = 0
        for sel, want in SIGNATURES.items():
            got = found.get(sel)
            if got is None:
                print(f"{sel}: not in the wheel's metadata (argument types unchecked)")
                continue
            # an empty code in the wheel means "PyObjC takes it from the runtime"; compare the rest
            if any(g and g != w for g, w in zip((got[0], *got[1]), (want[0], *want[1]), strict=True)):
                print(f"{sel}: table {want}, wheel {got}")
                bad += 1
        print("table matches the wheel" if not bad else f"{bad} selector(s) differ")
        return 1 if bad else 0
    for sel in sorted(found):
        print(f'    "{sel}": {found[sel]!r},')
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
