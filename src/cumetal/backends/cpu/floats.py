"""Moved to ``cumetal.ir.semantics.floats`` (issue #10: one executable semantics for every IR op).

This name stays an alias of that module (same object), so existing imports and monkeypatches work."""

import sys

from cumetal.ir.semantics import floats as _moved

sys.modules[__name__] = _moved
