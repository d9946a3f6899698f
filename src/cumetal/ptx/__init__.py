"""cumetal.ptx — PTX front end: parser, instruction table, printer.

    from cumetal.ptx import parse, print_module, structure
    result = parse(text, "kernel.ptx")      # .module, .diagnostics, .ok
"""

from cumetal.ptx.parser import ParseResult, parse
from cumetal.ptx.printer import print_module, structure
from cumetal.ptx.special_registers import SPECIAL_REGISTERS, is_special_register

__all__ = ["ParseResult", "parse", "print_module", "structure", "SPECIAL_REGISTERS", "is_special_register"]
