"""Executable reference semantics of the kernel IR's ops (numpy over bit patterns, bit-exact).

``cumetal.ir.ops`` names, per op, the factory in ``elementwise`` that defines it; ``floats``,
``rounding`` and ``nanrules`` hold the exact IEEE machinery and NVIDIA's NaN rules they use, and
``dtypes`` how each IR type is stored (an unsigned container of its width, ``i1`` as bool).
These modules were the CPU engine's; the engine now runs them through the op table.
"""
