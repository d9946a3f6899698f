"""The PTX ISA 9.x instruction catalogue, one module per group of the manual's chapter 9.7.

``CATALOGUE`` is a list of (group, entries); each entry is (root, forms, value sets) as built by
``sets.I``. ``cumetal.ptx.table`` compiles it.
"""

from __future__ import annotations

from cumetal.ptx.isa import arith, data, logic, matrix, sync, texture, video
from cumetal.ptx.isa.sets import Entry

CATALOGUE: list[tuple[str, list[Entry]]] = [
    ("arithmetic", arith.ENTRIES),
    ("logic", logic.ENTRIES),
    ("data", data.ENTRIES),
    ("texture", texture.ENTRIES_TEXTURE),
    ("control", sync.ENTRIES_CONTROL),
    ("sync", sync.ENTRIES_SYNC),
    ("matrix", matrix.ENTRIES),
    ("video", video.ENTRIES_VIDEO),
    ("misc", sync.ENTRIES_MISC),
]
