"""``std::iterator_traits<void*>`` in the device compile (libc++, C++17 by default): CCCL 3 probes it
through SFINAE when CUB's two-phase calls (``cub::DeviceReduce::ArgMax(d_temp_storage, bytes, ...)``)
meet the ``void*`` temporary storage. libc++ before C++20 made that a hard error ("cannot form a
reference to 'void'"); CuMetal's headers (``cumetal/libcxx_compat.h``) give the void pointers the
empty traits C++20 libc++ gives them. No CCCL needed: the probe is written out here, and the same
source compiled as C++20 (libc++'s own constrained traits) is the reference behaviour."""

from __future__ import annotations

import pytest

from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

PROBE = r"""
#include <iterator>
#include <type_traits>
template <class T, class = void> struct has_reference : std::false_type {};
template <class T>
struct has_reference<T, std::void_t<typename std::iterator_traits<T>::reference>> : std::true_type {};
// CCCL's libc++ check: is std::iterator_traits<I> the primary template?
template <class T, class = void> struct is_primary : std::false_type {};
template <class T>
struct is_primary<T, std::enable_if_t<std::is_same_v<std::iterator_traits<T>,
                                                     typename std::iterator_traits<T>::__primary_template>>>
    : std::true_type {};
static_assert(!has_reference<void *>::value && !has_reference<const void *>::value, "void* is no iterator");
static_assert(has_reference<int *>::value && has_reference<const char *>::value, "T* is an iterator");
static_assert(is_primary<void *>::value && is_primary<const volatile void *>::value, "as C++20 libc++");
static_assert(!is_primary<int *>::value, "the pointer specialization stays");
static_assert(std::is_same_v<std::iterator_traits<int *>::reference, int &>, "");
__global__ void probe(int *out) { out[0] = has_reference<void *>::value + 2 * is_primary<void *>::value; }
"""


@pytest.mark.parametrize("std", ["c++17", "c++20"])
def test_void_pointer_iterator_traits_are_sfinae_friendly(std: str) -> None:
    ptx = compile_to_ptx(PROBE, "probe.cu", CudaOptions(std=std)).ptx
    assert ".entry _Z5probePi" in ptx
