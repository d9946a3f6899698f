"""A read-modify-write as a compare-and-swap loop in the IR (shared by the atomic rules).

The loop works on the integer view of the word and starts from a guess of 0 (a counter's or an
accumulator's usual first value), so it costs one ``atomic_cas`` when the guess is right and never
issues a plain load of a word other threads update::

    body:  cur = 0
    loop:  new  = update(cur)
           seen = atomic_cas [addr], cur, new
           done = icmp eq seen, cur
           cur  = seen
           cbr done, exit, loop
    exit:  (result: seen, the raw old word)
"""

from __future__ import annotations

from collections.abc import Callable

from cumetal.ir import types as T
from cumetal.ir.nodes import Inst, Value, Var
from cumetal.passes.legalize.builder import Builder


def cas_loop(b: Builder, inst: Inst, update: Callable[[Var], Value]) -> Var:
    """The old word (integer of the destination's width) of ``inst``'s RMW with ``update(cur)``."""
    it = T.int_type(T.bits(inst.dsts[0].type))
    addr = inst.args[0]
    cur = b.fn.new_var(it)
    seen = b.fn.new_var(it)
    b.op_into(cur, "mov", b.int(it, 0))
    loop = b.new_block("cas")
    done_blk = b.new_block("casdone")
    b.br(loop)
    b.goto(loop)
    new = update(cur)
    b.op_into(seen, "atomic_cas", addr, cur, new, space=inst.attrs["space"])
    done = b.icmp("eq", seen, cur)
    b.op_into(cur, "mov", seen)
    b.cbr(done, done_blk, loop)
    b.goto(done_blk)
    return seen
