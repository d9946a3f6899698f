"""backends/apple/heap.py: linking the allocator into a module (what every Apple target gets)."""

from __future__ import annotations

import dataclasses

import pytest

from cumetal.backends.apple import heap
from cumetal.ir.analysis import reachable_functions
from cumetal.passes import compile_ptx

PTX = """.version 7.8
.target sm_80
.address_size 64
.extern .func (.param .b64 r) malloc (.param .b64 n);
.extern .func free (.param .b64 p);
.global .align 8 .u64 table[2];
.func (.param .b32 r) twice (.param .b32 x) { .reg .b32 %a; ld.param.b32 %a, [x]; shl.b32 %a, %a, 1; st.param.b32 [r], %a; ret; }
.visible .entry grab(.param .u64 out)
{
    .reg .b64 %p, %o;
    ld.param.u64 %o, [out];
    { .param .b64 n; .param .b64 r; st.param.b64 [n], 64; call.uni (r), malloc, (n); ld.param.b64 %p, [r]; }
    st.global.u64 [%o], %p;
    ret;
}
.visible .entry drop(.param .u64 p)
{
    .reg .b64 %p;
    ld.param.u64 %p, [p];
    { .param .b64 a; st.param.b64 [a], %p; call.uni free, (a); }
    ret;
}
.visible .entry plain(.param .u64 p) { ret; }
"""


@pytest.fixture(scope="module")
def module():
    return compile_ptx(PTX, "heap_link.ptx")


def _ops(fn):
    return {i.op for b in fn.blocks for i in b.insts}


def test_link_module_turns_every_malloc_and_free_into_calls(module):
    assert "malloc" in _ops(module.kernels["grab"]) and "free" in _ops(module.kernels["drop"])
    linked = heap.link_module(module)
    for k in linked.kernels.values():
        assert not {"malloc", "free"} & _ops(k)
    assert {f.name for f in reachable_functions(linked.kernels["grab"], linked)} >= {"grab", heap.MALLOC}
    assert {f.name for f in reachable_functions(linked.kernels["drop"], linked)} >= {"drop", heap.FREE}
    # appended last: the module's own globals keep their table slots, its functions their addresses
    assert list(linked.globals)[:-1] == list(module.globals) and list(linked.globals)[-1] == heap.STATE
    for name in module.functions:
        assert linked.function_address(name) == module.function_address(name)
    assert linked.kernels["plain"] is module.kernels["plain"]
    assert module.kernels["grab"] is not linked.kernels["grab"] and "malloc" in _ops(module.kernels["grab"])


def test_linking_twice_or_after_one_kernel_is_harmless(module):
    linked = heap.link_module(module)
    assert heap.link_module(linked) is linked
    _, one = heap.link(module.kernels["grab"], module)  # what a simulator does at launch
    assert "free" in _ops(one.kernels["drop"])
    both = heap.link_module(one)
    assert not {"malloc", "free"} & _ops(both.kernels["drop"]) and list(both.globals) == list(linked.globals)


def test_a_module_without_the_heap_is_left_alone(module):
    plain = dataclasses.replace(module, kernels={"plain": module.kernels["plain"]}, functions={})
    assert heap.link_module(plain) is plain


def test_a_module_defining_the_reserved_names_is_refused(module):
    clash = dataclasses.replace(module, globals={**module.globals, heap.STATE: module.globals["table"]})
    with pytest.raises(ValueError, match="reserves"):
        heap.link_module(clash)
