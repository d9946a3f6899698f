"""runtime/std_names.py: a kernel named by a standard-library type is spelled ``std::__1::`` by the
device compile (bundled libc++) and ``std::`` by a host compile against libstdc++; ``same_kernel``
pairs the two through the C++ runtime's demangler, and only them (written by CCCL2 for its own
matcher, which was merged into the runtime's)."""

from __future__ import annotations

import re

import pytest
from cudacxx_harness import ptx_of

from cumetal.runtime import std_names as mangling

pytestmark = pytest.mark.skipif(mangling._demangler() is None, reason="no C++ runtime with __cxa_demangle here")

# Itanium spellings of apply<std::plus<int>>(int*, std::plus<int>) with libstdc++ (plain std::)
HOST_APPLY = "_Z5applyISt4plusIiEEvPiT_"
# CCCL 2.8's kernel as the host registered it (seen in a cumetalc build) and as the PTX names it:
# the substitution S6_ survives, std::__1 adds a component in between
HOST_SCAN = ("_ZN3cub17CUB_200802_SM_80025DeviceScanByKeyInitKernelINS0_24ReduceByKeyScanTileStateIiiLb1EEEPijEEvT_T0_"
             "PNSt15iterator_traitsIS6_E10value_typeET1_i")
DEVICE_SCAN = HOST_SCAN.replace("NSt15iterator_traits", "NSt3__115iterator_traits")
OTHER_SCAN = DEVICE_SCAN.replace("PijEEvT_", "PimEEvT_")  # the same kernel for another offset type


def test_device_compile_names_libcxx_and_matches_the_libstdcxx_spelling():
    ptx = ptx_of("#include <functional>\n"
                 "template <class Op> __global__ void apply(int *p, Op op) { p[0] = op(p[0], 2); }\n"
                 "template __global__ void apply<std::plus<int>>(int *, std::plus<int>);\n"
                 "__global__ void plain(int *p) { p[0] = 1; }\n")
    entries = re.findall(r"\.entry\s+(\w+)\s*\(", ptx)
    device_apply = next(e for e in entries if e.startswith("_Z5apply"))
    assert "St3__1" in device_apply  # the bundled libc++'s inline namespace
    assert mangling.demangle(device_apply).replace(" ", "") == "voidapply<std::__1::plus<int>>(int*,std::__1::plus<int>)"
    assert mangling.same_kernel(HOST_APPLY, entries) == device_apply
    assert mangling.same_kernel(device_apply, [HOST_APPLY, "_Z5plainPi"]) == HOST_APPLY  # either way round


def test_substitutions_and_near_misses():
    assert mangling.same_kernel(HOST_SCAN, [OTHER_SCAN, DEVICE_SCAN]) == DEVICE_SCAN
    assert mangling.same_kernel(HOST_SCAN, [OTHER_SCAN]) is None  # another instantiation is no match
    assert mangling.same_kernel("_Z5plainPi", ["_Z5plainPf"]) is None  # no std:: type: never guessed
    assert mangling.same_kernel("plain", ["plain2"]) is None
    assert mangling.demangle("not_mangled") is None


def test_std_tuple_is_not_matched():
    """libstdc++ and libc++ lay std::tuple out differently: by-value bytes would be misread."""
    host = "_Z1kSt5tupleIJifEE"  # k(std::tuple<int, float>)
    device = "_Z1kNSt3__15tupleIJifEEE"
    assert mangling.demangle(host).replace(" ", "") == "k(std::tuple<int,float>)"
    with pytest.raises(mangling.TupleByValue, match="std::tuple by value"):
        mangling.same_kernel(host, [device])
