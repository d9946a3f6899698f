"""The emulated f64 arithmetic (--fp64=emulate) stays within the bounds docs/fp64-policy.md documents,
measured against exact arithmetic (fractions, mpmath) on random operands over binary64's whole
exponent range, by the rules' own meaning (the legalized IR on the cpu engine, whose primitives are
their reference definitions; tests/fp64/test_backends.py shows air-sim and msl-sim give the same bits)."""

from __future__ import annotations

import numpy as np
import pytest
from tests.fp64.accuracy import BOUNDS, OPS, measure


@pytest.mark.parametrize("name", list(OPS))
def test_error_within_the_documented_bound(name):
    err = measure(name, n=1024)  # the docs' table: 2048 per op (python -m tests.fp64.accuracy)
    assert np.all(np.isfinite(err)), f"{name}: {np.count_nonzero(~np.isfinite(err))} results not finite"
    worst = float(err.max())
    assert worst <= BOUNDS[name], f"{name}: {worst:.1f} ulps > documented {BOUNDS[name]}"
    # and it is an emulation of ~48 bits, not an accident of a few samples: most results are close
    assert np.median(err) <= BOUNDS[name] / 4
