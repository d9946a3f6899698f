"""Catalogue of PTX special registers (PTX ISA manual §10), for the parser's users and lowering."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SpecialRegister:
    name: str  # '%tid'
    type: str  # PTX type of a read: 'u32', 'u64', 'b32', …
    components: tuple[str, ...] = ()  # ('x', 'y', 'z') for vector registers
    indexed: int = 0  # %envreg<32>, %pm0..%pm7: how many numbered instances exist


_XYZ = ("x", "y", "z")

_ALL = [
    SpecialRegister("%tid", "u32", _XYZ),
    SpecialRegister("%ntid", "u32", _XYZ),
    SpecialRegister("%laneid", "u32"),
    SpecialRegister("%warpid", "u32"),
    SpecialRegister("%nwarpid", "u32"),
    SpecialRegister("%ctaid", "u32", _XYZ),
    SpecialRegister("%nctaid", "u32", _XYZ),
    SpecialRegister("%smid", "u32"),
    SpecialRegister("%nsmid", "u32"),
    SpecialRegister("%gridid", "u64"),
    SpecialRegister("%is_explicit_cluster", "pred"),
    SpecialRegister("%clusterid", "u32", _XYZ),
    SpecialRegister("%nclusterid", "u32", _XYZ),
    SpecialRegister("%cluster_ctaid", "u32", _XYZ),
    SpecialRegister("%cluster_nctaid", "u32", _XYZ),
    SpecialRegister("%cluster_ctarank", "u32"),
    SpecialRegister("%cluster_nctarank", "u32"),
    SpecialRegister("%lanemask_eq", "u32"),
    SpecialRegister("%lanemask_le", "u32"),
    SpecialRegister("%lanemask_lt", "u32"),
    SpecialRegister("%lanemask_ge", "u32"),
    SpecialRegister("%lanemask_gt", "u32"),
    SpecialRegister("%clock", "u32"),
    SpecialRegister("%clock_hi", "u32"),
    SpecialRegister("%clock64", "u64"),
    SpecialRegister("%pm", "u32", indexed=8),  # %pm0 … %pm7
    SpecialRegister("%pm_64", "u64", indexed=8),  # %pm0_64 … %pm7_64
    SpecialRegister("%envreg", "b32", indexed=32),  # %envreg0 … %envreg31
    SpecialRegister("%globaltimer", "u64"),
    SpecialRegister("%globaltimer_lo", "u32"),
    SpecialRegister("%globaltimer_hi", "u32"),
    SpecialRegister("%reserved_smem_offset_begin", "b32"),
    SpecialRegister("%reserved_smem_offset_end", "b32"),
    SpecialRegister("%reserved_smem_offset_cap", "b32"),
    SpecialRegister("%reserved_smem_offset", "b32", indexed=2),  # _0, _1 (written %reserved_smem_offset_<2>)
    SpecialRegister("%total_smem_size", "u32"),
    SpecialRegister("%aggr_smem_size", "u32"),
    SpecialRegister("%dynamic_smem_size", "u32"),
    SpecialRegister("%current_graph_exec", "u64"),
    SpecialRegister("%warpsize", "u32"),
]

SPECIAL_REGISTERS: dict[str, SpecialRegister] = {r.name: r for r in _ALL}


def _instances() -> dict[str, SpecialRegister]:
    out: dict[str, SpecialRegister] = {}
    for r in _ALL:
        if not r.indexed:
            out[r.name] = r
        elif r.name == "%pm_64":
            out.update({f"%pm{i}_64": r for i in range(r.indexed)})
        elif r.name == "%reserved_smem_offset":
            out.update({f"%reserved_smem_offset_{i}": r for i in range(r.indexed)})
        else:
            out.update({f"{r.name}{i}": r for i in range(r.indexed)})
    return out


_BY_SPELLING = _instances()


def is_special_register(name: str) -> bool:
    """True for a special register as written in PTX (``%tid``, ``%envreg3``, ``%pm0_64``)."""
    return name in _BY_SPELLING


def special_register(name: str) -> SpecialRegister | None:
    """The catalogue entry for a written special register name (without component)."""
    return _BY_SPELLING.get(name)
