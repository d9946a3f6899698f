"""Every Runtime API function, called with arguments of the wrong kind or out of range, returns a
cudaError_t tuple: never a Python exception, a hang or a crash (host pointers given as wild ints are
trusted as in C, so the values used here are ones CUDA would reject too)."""

from __future__ import annotations

import enum
import inspect

import pytest

from cumetal import runtime as rt

BAD = (None, -1, "bad", 1.5, object(), 2**70, [1, 2])
FUNCTIONS = sorted(n for n in dir(rt) if n.startswith("cuda") and inspect.isfunction(getattr(rt, n)))


def _arity(fn) -> int:
    params = inspect.signature(fn).parameters.values()
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


@pytest.mark.parametrize("name", FUNCTIONS)
def test_bad_arguments_return_an_error_code(name):
    fn = getattr(rt, name)
    n = _arity(fn)
    calls = [(bad,) * n for bad in BAD] + [(), (0,) * (n + 2)]
    for args in calls:
        result = fn(*args)
        assert isinstance(result, tuple) and result, (name, args, result)
        assert isinstance(result[0], enum.IntEnum), (name, args, result)
    rt.cudaDeviceReset()  # whatever the calls did, the next test starts clean
