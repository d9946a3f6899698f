"""cumetal.ir: the one typed, target-neutral kernel IR (see ops.py for the semantics)."""

from cumetal.ir.dump import dump_function, dump_module
from cumetal.ir.nodes import Block, Const, Function, GlobalVar, Inst, Module, Param, SymAddr, Value, Var
from cumetal.ir.ops import LOCAL_WINDOW, OPS, SHARED_WINDOW, WINDOW_SIZE
from cumetal.ir.verify import VerifyError, verify, verify_function

__all__ = ["Block", "Const", "Function", "GlobalVar", "Inst", "Module", "Param", "SymAddr", "Value", "Var",
           "OPS", "SHARED_WINDOW", "LOCAL_WINDOW", "WINDOW_SIZE", "verify", "verify_function", "VerifyError",
           "dump_function", "dump_module"]
