"""``__cluster_dims__`` → PTX ``.explicitcluster`` / ``.reqnctapercluster``.

nvcc writes a kernel's compile-time cluster shape into its PTX entry; clang 22 accepts the
``cluster_dims`` attribute for CUDA but emits nothing for it on NVPTX (neither a function
attribute nor an ``nvvm.annotations`` entry). CuMetal's ``__cluster_dims__`` (cumetal/qualifiers.h)
therefore also attaches ``annotate("cumetal.cluster_dims", x, y, z)``, which clang evaluates and
keeps in the module's ``llvm.global.annotations``. When a compile uses it, the front end reads the
annotations from the same compile's LLVM IR and adds the directives to each kernel's PTX entry.
"""

from __future__ import annotations

import re

MARKER = "cumetal.cluster_dims"
_STR = re.compile(r'^(@[\w.$"-]+) = .*constant \[\d+ x i8\] c"((?:[^"\\]|\\[0-9A-Fa-f]{2})*)\\00"', re.M)
_ARGS = re.compile(r"^(@[\w.$-]+) = .*constant \{ ([^}]*) \} \{ ([^}]*) \}", re.M)
_ENTRY = re.compile(r"\{ ptr (@[\w.$]+|@\"[^\"]+\"), ptr (@[\w.$\"-]+), ptr @[\w.$\"-]+, i32 \d+, ptr (@[\w.$-]+|null) \}")


def uses_cluster_dims(text: str) -> bool:
    return "cluster_dims" in text


def cluster_dims_from_ir(ir: str) -> dict[str, tuple[int, int, int]]:
    """Kernel name -> (x, y, z) from the ``cumetal.cluster_dims`` annotations of textual LLVM IR."""
    strings = {name: value for name, value in _STR.findall(ir)}
    args = {}
    for name, _types, values in _ARGS.findall(ir):
        nums = [int(v.split()[-1]) for v in values.split(",") if v.strip()]
        args[name] = nums
    out: dict[str, tuple[int, int, int]] = {}
    for fn, label, arg in _ENTRY.findall(ir):
        if strings.get(label) != MARKER:
            continue
        dims = (args.get(arg, []) + [1, 1, 1])[:3]
        out[fn[1:].strip('"')] = (dims[0], dims[1], dims[2])
    return out


def add_cluster_directives(ptx: str, dims: dict[str, tuple[int, int, int]]) -> str:
    """``ptx`` with ``.explicitcluster`` and ``.reqnctapercluster x, y, z`` after each listed
    kernel's parameter list (where nvcc writes them)."""
    for name, (x, y, z) in dims.items():
        for m in re.finditer(r"\.entry\s+" + re.escape(name) + r"\s*\(", ptx):
            depth, i = 1, m.end()
            while i < len(ptx) and depth:
                depth += {"(": 1, ")": -1}.get(ptx[i], 0)
                i += 1
            if ptx[i:].lstrip().startswith(";"):  # a prototype (clang declares kernels first)
                continue
            ptx = ptx[:i] + f"\n.explicitcluster\n.reqnctapercluster {x}, {y}, {z}" + ptx[i:]
            break
    return ptx
