"""``cuGraphDebugDotPrint`` / ``cudaGraphDebugDotPrint``: a graph in Graphviz DOT, laid out as NVIDIA's
driver writes it (recorded on an H100 for every ``CUgraphDebugDot_flags`` value,
``scripts/make_graph_dot_goldens.py`` -> ``tests/driver/data/graph_dot_h100.json``).

One ``subgraph cluster_<id>`` per graph (child graphs follow their parent), one node statement per
node, one edge per dependency. With no flags a node shows its index and kind (a kernel its name, a
memcpy its direction and size, a memset its value and size). Each detail flag turns that kind's node
into a record of its parameters (kernel attributes, memcpy, memset, allocation and free nodes) or adds
lines (host function, event); ``HANDLES`` adds node and function handles, ``EXTRA_TOPO_INFO`` a
topological id per node and each edge's position among its destination's dependencies;
``VERBOSE`` means all of them. What differs from NVIDIA's text: the ids and handles are CuMetal's,
``topoId`` is CuMetal's topological order (NVIDIA's rule is not documented), a memcpy record's pitch and sizes are 0 where
they are the defaults (CuMetal keeps the copy in one normalised form), and kinds whose layout was not recorded (conditional, batch memory operation, external semaphore, memcpy
batch) are shown as a box with their kind.
"""

from __future__ import annotations

from typing import Any

# CUgraphDebugDot_flags
VERBOSE, RUNTIME_TYPES, KERNEL_PARAMS, MEMCPY_PARAMS, MEMSET_PARAMS = 1, 2, 4, 8, 16
HOST_PARAMS, EVENT_PARAMS, KERNEL_ATTRIBUTES, HANDLES = 32, 64, 512, 1024
MEM_ALLOC_PARAMS, MEM_FREE_PARAMS, EXTRA_TOPO_INFO = 2048, 4096, 16384
ALL_FLAGS = (1 << 18) - 1  # every flag cuda-bindings 13.5 defines


def _hex(v: Any) -> str:
    return f"0x{int(v or 0) & (2**64 - 1):016X}"


class _Writer:
    def __init__(self, flags: int) -> None:
        self.flags = (ALL_FLAGS & ~RUNTIME_TYPES) | (flags & RUNTIME_TYPES) if flags & VERBOSE else flags
        self.out: list[str] = ["digraph dot {"]

    def on(self, flag: int) -> bool:
        return bool(self.flags & flag)

    def graph(self, g: Any, gid: int) -> None:
        from cumetal.runtime.graphs import T

        children: list[tuple[Any, int]] = []
        topo = _topological_ids(g)
        self.out += [f"subgraph cluster_{gid} {{", f'label="graph_{gid}" graph[style="dashed"];']
        for i, n in enumerate(g.nodes):
            name = f"graph_{gid}_node_{i}"
            ident = f"{i} (topoId: {topo[n.handle]})" if self.on(EXTRA_TOPO_INFO) else str(i)
            if n.kind == T.cudaGraphNodeTypeGraph:
                children.append((n.params, _graph_id(n.params)))
            self.out.append(f'"{name}"{self._node(n, ident)}];')
            self.out.append("")
        index = {n.handle: i for i, n in enumerate(g.nodes)}
        edges = sorted((index[d.handle], i, k) for i, n in enumerate(g.nodes) for k, d in enumerate(n.deps))
        for src, dst, k in edges:
            tail = f" [headlabel={k}]" if self.on(EXTRA_TOPO_INFO) else ""
            self.out.append(f'"graph_{gid}_node_{src}" -> "graph_{gid}_node_{dst}"{tail};')
        self.out.append("}")
        for child, cid in children:
            self.graph(child, cid)

    # ------------------------------------------------------------ one node: the text after its name
    def _node(self, n: Any, ident: str) -> str:
        from cumetal.runtime.graphs import T

        k = n.kind
        handle = _hex(n.handle)
        if k == T.cudaGraphNodeTypeKernel:
            return self._kernel(n, ident, handle)
        if k == T.cudaGraphNodeTypeMemset:
            dst, pitch, value, size, width, height = n.params
            if self.on(MEMSET_PARAMS):
                heads, cells = ["ID", "dptr", "pitch", "value", "elementSize", "width", "height"], \
                    [ident, _hex(dst), pitch, value, size, width, height]
                if self.on(HANDLES):
                    heads.insert(1, "node handle")
                    cells.insert(1, handle)
                return (f'[style="solid" style="solid" shape="record" label="{{MEMSET\n| {{{{{" | ".join(heads)}}} | '
                        f'{{{" | ".join(map(str, cells))}}}}}}}"')
            return self._box("invtrapezium", ident, "MEMSET", handle, [f"({value},{width * size * height})"],
                             space=False)
        if k == T.cudaGraphNodeTypeMemcpy:
            copy = _Copy(n.params)
            if self.on(MEMCPY_PARAMS):
                body = copy.runtime_record() if self.on(RUNTIME_TYPES) else copy.record()
                return f'[style="solid" shape="record" label="{{\nMEMCPY\n{self._id_row(ident, handle)}\n' \
                       f'{body}\n}}"'
            return self._box("trapezium", ident, "MEMCPY", handle, [f"({copy.direction},{copy.nbytes})"], space=False)
        if k == T.cudaGraphNodeTypeHost:
            fn, data = n.params
            extra = [f"fn: {_hex(_address(fn))}", f"userData: {_hex(_address(data))}"] if self.on(HOST_PARAMS) else []
            return self._box("rectangle", ident, "HOST", handle, extra)
        if k in (T.cudaGraphNodeTypeEventRecord, T.cudaGraphNodeTypeWaitEvent):
            label = "EVENT_RECORD" if k == T.cudaGraphNodeTypeEventRecord else "EVENT_WAIT"
            extra = [f"event: {_hex(n.params)}"] if self.on(EVENT_PARAMS) else []
            return self._box("rectangle", ident, label, handle, extra)
        if k == T.cudaGraphNodeTypeGraph:
            return self._box("rectangle", ident, f"graph_{_graph_id(n.params)}", handle, [])
        if k == T.cudaGraphNodeTypeMemAlloc and self.on(MEM_ALLOC_PARAMS):
            a = n.params
            return ('[style="solid" shape="record" label="{\nMEM_ALLOC\n' + self._id_row(ident, handle) + "\n"
                    "| {{{poolProps | {allocType | handleTypes | {location | {type | id}}} | "
                    "{PINNED | NONE | DEVICE | 0}}}}\n"
                    f"| {{{{bytesize | dptr}} | {{{a.size} | {_hex(a.dptr)}}}}}\n}}\"")
        if k == T.cudaGraphNodeTypeMemFree and self.on(MEM_FREE_PARAMS):
            return ('[style="solid" shape="record" label="{\nMEM_FREE\n' + self._id_row(ident, handle) + "\n"
                    f"| {{{{dptr}} | {{{_hex(n.params)}}}}}\n}}\"")
        label = {T.cudaGraphNodeTypeEmpty: "EMPTY", T.cudaGraphNodeTypeMemAlloc: "MEM_ALLOC",
                 T.cudaGraphNodeTypeMemFree: "MEM_FREE"}.get(k, k.name.removeprefix("cudaGraphNodeType").upper())
        return self._box("rectangle", ident, label, handle, [])

    def _box(self, shape: str, ident: str, label: str, handle: str, extra: list[str], *, space: bool = True,
             handles: tuple[str, ...] = ()) -> str:
        lines = [ident, label]
        if self.on(HANDLES):
            lines += [f"node handle: {handle}", *handles]
        lines += extra
        sep = " " if space else ""
        return f'[style="solid" shape="{shape}"{sep}label="' + "\n".join(lines) + '\n"'

    def _id_row(self, ident: str, handle: str) -> str:
        if self.on(HANDLES):
            return f"| {{{{ID | node handle}} | {{{ident} | {handle}}}}}"
        return f"| {{{{ID}} | {{{ident}}}}}"

    def _kernel(self, n: Any, ident: str, handle: str) -> str:
        from cumetal.driver.state import STATE

        fh, grid, block, shared, _packed = n.params
        fn = STATE.objects.get(fh)
        name = fn.kernel.name if fn is not None else f"kernel_{fh:x}"
        dims = f"\\<\\<\\<{_dim(grid)},{_dim(block)},{shared}\\>\\>\\>" if self.on(KERNEL_PARAMS) else ""
        func = f"func handle: {_hex(fh)}"
        if not self.on(KERNEL_ATTRIBUTES):
            lines = [ident, name]
            if self.on(HANDLES):
                lines += [f"node handle: {handle}", func]
            text = "\n".join(lines) + "\n"
            return f'[style="bold" shape="octagon" label="{text}{dims}"' if dims else \
                f'[style="bold" shape="octagon" label="{text}"'
        attrs = _kernel_attributes(n.handle)
        rows = [f"| {{ID | {ident} | {name}{dims}}}"]
        if self.on(HANDLES):
            rows.append(f"| {{{{node handle | func handle}} | {{{handle} | {_hex(fh)}}}}}")
        rows += ["| {accessPolicyWindow | {base_ptr | num_bytes | hitRatio | hitProp | missProp} | "
                 f"{{{_hex(attrs['base_ptr'])} | {attrs['num_bytes']} | {attrs['hitRatio']:.6f} | N | N}}}}",
                 f"| {{cooperative | {attrs['cooperative']}}}", f"| {{priority | {attrs['priority']}}}"]
        return '[style="bold" shape="record" label="{KERNEL\n' + "\n".join(rows) + '\n}"'


class _Copy:
    """A memcpy node's parameters (the runtime's cudaMemcpy3DParms or a 1D (dst, src, count, kind))."""

    def __init__(self, params: Any) -> None:
        if isinstance(params, tuple):
            dst, src, count, _kind = params
            self.sides = [(_address(src), 0, 0, 0, 0), (_address(dst), 0, 0, 0, 0)]
            self.extent = (int(count), 1, 1)
        else:
            self.sides = [(int(getattr(p, "ptr", 0) or 0), pos.x, pos.y, pos.z, p.pitch)
                          for p, pos in ((params.srcPtr, params.srcPos), (params.dstPtr, params.dstPos))]
            e = params.extent
            self.extent = (int(e.width), int(e.height), int(e.depth))
        self.nbytes = self.extent[0] * self.extent[1] * self.extent[2]
        self.kinds = [_memory_kind(s[0]) for s in self.sides]
        src, dst = ("D" if k.startswith("DEVICE") else "H" for k in self.kinds)
        self.direction = f"{src}to{dst}"

    def runtime_record(self) -> str:
        """The cudaMemcpy3DParms form (RUNTIME_TYPES)."""
        width, height, depth = self.extent
        kinds = " to ".join(k.split(" (", 1)[1].rstrip(")") for k in self.kinds)
        ptrs, pos = [], []
        for addr, x, y, z, pitch in self.sides:
            ptrs += [pitch if pitch != width else 0, _hex(addr), 0, 0]
            pos.append(f"{{{{x | {x}}} | {{y | {y}}} | {{z | {z}}}}}")
        return (f"| {{kind | {self.direction} ({kinds})}}\n"
                f"| {{{{srcPtr | dstPtr}} | {{pitch | ptr | xsize | ysize | pitch | ptr | xsize | ysize}} | "
                f"{{{' | '.join(map(str, ptrs))}}}}}\n"
                f"| {{{{srcPos | {pos[0]}}} | {{dstPos | {pos[1]}}} | {{Extent | {{{{Width | {width}}} | "
                f"{{Height | {height}}} | {{Depth | {depth}}}}}}}}}")

    def record(self) -> str:
        heads = " | ".join(["MemoryType", "Array", "Host", "Device", "XInBytes", "Y", "Z", "Pitch", "Height", "LOD"] * 2)
        cells = []
        for (addr, x, y, z, pitch), kind in zip(self.sides, self.kinds, strict=True):
            host = kind.startswith("HOST")
            cells += [kind, _hex(0), _hex(addr if host else 0), _hex(0 if host else addr), x, y, z,
                      pitch if pitch != self.extent[0] else 0, 0, 0]
        width, height, depth = self.extent
        return (f"| {{{{src | dst}} | {{ {heads}}} | {{{' | '.join(map(str, cells))}}}}}\n"
                f"| {{Extent | {{WidthInBytes | Height | Depth}} | {{{width} | {height} | {depth}}}}}")


def _memory_kind(addr: int) -> str:
    from cumetal.runtime.memory import allocation_of

    found = allocation_of(addr) if addr else None
    if found is None:
        return "HOST (HOST PAGEABLE)"
    return "HOST (HOST PINNED)" if found[2] else "DEVICE (DEVICE)"


def _address(v: Any) -> int:
    import ctypes

    if v is None:
        return 0
    if isinstance(v, ctypes.c_void_p):
        return int(v.value or 0)
    try:
        return int(v)
    except (TypeError, ValueError):
        try:
            return ctypes.cast(v, ctypes.c_void_p).value or 0
        except (TypeError, ctypes.ArgumentError):
            return id(v)  # a Python callable: its identity stands for the function address


def _dim(d: Any) -> str:
    x, y, z = (int(v) for v in (d if isinstance(d, tuple) else (d.x, d.y, d.z)))
    return str(x) if y == z == 1 else f"({x},{y},{z})"


def _graph_id(g: Any) -> int:
    return g.handle & 0xFFFFFFFF  # cuGraphGetId's value


def _kernel_attributes(node: int) -> dict:
    from cumetal.runtime import graph_attributes as ga

    got = ga._attrs.get(node, {})
    window = got.get(ga.A.cudaLaunchAttributeAccessPolicyWindow)
    return {"base_ptr": _address(getattr(window, "base_ptr", 0)), "num_bytes": int(getattr(window, "num_bytes", 0) or 0),
            "hitRatio": float(getattr(window, "hitRatio", 0) or 0),
            "cooperative": int(got.get(ga.A.cudaLaunchAttributeCooperative, 0) or 0),
            "priority": int(got.get(ga.A.cudaLaunchAttributePriority, 0) or 0)}


def _topological_ids(g: Any) -> dict[int, int]:
    """Kahn's order over the graph's nodes, ties broken by insertion order."""
    pending = {n.handle: len(n.deps) for n in g.nodes}
    users: dict[int, list[Any]] = {n.handle: [] for n in g.nodes}
    for n in g.nodes:
        for d in n.deps:
            users[d.handle].append(n)
    ready = [n for n in g.nodes if not n.deps]
    out: dict[int, int] = {}
    while ready:
        n = ready.pop(0)
        out[n.handle] = len(out)
        for u in users[n.handle]:
            pending[u.handle] -= 1
            if pending[u.handle] == 0:
                ready.append(u)
    return out


def dot_text(graph: Any, flags: int) -> str:
    """The DOT text for a runtime Graph record (``cumetal.runtime.graphs.Graph``)."""
    w = _Writer(int(flags))
    w.graph(graph, _graph_id(graph))
    w.out.append("}")
    return "\n".join(w.out) + "\n"
