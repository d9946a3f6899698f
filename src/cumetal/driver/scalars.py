"""cuda-python's fixed-width integer wrappers (``cuuint32_t``, ``cuuint64_t``): an int in a C cell."""

from __future__ import annotations

import ctypes

from cumetal.driver.handles import _Handle


class cuuint64_t(_Handle):  # noqa: N801 - cuda-python's name
    __slots__ = ()
    _ctype = ctypes.c_uint64
    _hex = False


class cuuint32_t(_Handle):  # noqa: N801
    __slots__ = ()
    _ctype = ctypes.c_uint32
    _hex = False
