"""Named barriers with a thread count (``bar.sync a, b``, ``bar.arrive a, b``) for targets whose
only threadgroup barrier waits for every thread (Metal).

Each barrier id 0-15 is one 32-bit word of threadgroup memory: the arrivals of the current phase
(bits 0-15) and a generation (bits 16-31). The words live in the Apple ABI's barrier scratch after
the program's shared memory (``backends/apple/abi.py`` REDUCTION_SCRATCH: bytes 16-79; its IR
shared address is the launch's ``%total_smem_size``, what both Apple backends store there), and
the kernel zeroes them on entry (thread (0,0,0) stores, then a threadgroup barrier every thread
meets at the start)::

    trap unless id <= 15 and count is a positive multiple of 32
    membar cta                                          (the producer's writes before its arrival)
    loop: new = (cur & 0xFFFF) + 1 == count ? (cur & 0xFFFF0000) + 0x10000 : cur + 1
          seen = atomic_cas [word], cur, new;  cbr seen == cur, arrived, loop
    arrived (bar.sync only, when its arrival did not complete the phase):
    wait: m = activemask                                (the scheduling point of async_mbarrier.py)
          now = atomic or [word], 0;  cbr (now >> 16) != (seen >> 16) | m == 0, done, wait
    done: membar cta

A completed phase resets the count and bumps the generation in one swap, so an arrival of the next
phase can never be mistaken for this one. Threads are counted one by one, as the cpu engine does
(the hardware counts whole warps; the two agree when every thread of a warp arrives). In a device
function the words' zeroing cannot be placed at the kernel's entry: the expansion traps there.

A barrier reduction over a thread count (``bar.red a, b, c``: ``barrier_red`` with three
arguments) uses the same word in another layout (the PTX ISA leaves mixing bar.red with
bar.sync/bar.arrive on one barrier unpredictable): a counter (bits 0-10), the phase's true votes
(bits 11-21) and a draining flag (bit 22). Arrivals add 1 and their vote; the arrival that makes
the count switches the word to draining, keeping the votes, with count-1 departures to go; each
waiter, once it sees the flag, reads the votes and departs (the last one clears the word). An
arrival that finds the word draining waits, so the next phase never overwrites votes a waiter of
this one has still to read::

    trap unless id <= 15 and count is a positive multiple of 32;  membar cta
    arrive: cur = atomic or [word], 0;  if cur & DRAIN: activemask, retry
            new = counter + 1 == count ? DRAIN | votes' << 11 | count - 1 : cur + 1 + (vote << 11)
            cas; retry unless it swapped;  the completing thread's votes are votes'
    wait:   now = atomic or [word], 0 until now & DRAIN (activemask each try); votes = now >> 11 & 0x7FF
    depart: cas loop: new = counter == 1 ? 0 : cur - 1
    membar cta;  popc = votes, and = votes == count, or = votes != 0
"""

from __future__ import annotations

from cumetal.ir.nodes import Block, Inst, Value, Var
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules.async_mbarrier import _trap_unless

WORDS_OFFSET = 16  # after the 16 bytes bar.red uses (backends/apple/abi.py REDUCTION_SCRATCH)
NAMED_BARRIERS = 16
_INIT_TEXT = "(zero the named-barrier words: async_named_barrier.py)"


COUNTER = 0x7FF
VOTES_SHIFT = 11
DRAIN = 1 << 22


def _matches(inst: Inst) -> bool:
    if inst.op == "barrier_red":
        return len(inst.args) == 3
    kind = inst.attrs.get("kind")
    return kind == "arrive" or (kind == "sync" and len(inst.args) > 1)


def _words_base(b: Builder) -> Var:
    return b.op("add", "i64", b.op("zext", "i64", b.op("sreg", "i32", name="total_smem_size")),
                b.int("i64", WORDS_OFFSET))


def _zero_on_entry(b: Builder) -> None:
    """Put the words' zeroing at the start of the kernel (once)."""
    entry = b.fn.blocks[0] if b.fn.blocks else b.block
    if entry.insts and entry.insts[0].text == _INIT_TEXT:
        return
    saved = b.block
    scratch = Block(entry.label)
    b.block = scratch
    tid = [b.op("sreg", "i32", name=f"tid.{c}") for c in "xyz"]
    first = b.icmp("eq", b.op("or", "i32", b.op("or", "i32", tid[0], tid[1]), tid[2]), b.int("i32", 0))
    base = _words_base(b)
    for k in range(NAMED_BARRIERS):
        b.append(Inst("store", (), (b.op("add", "i64", base, b.int("i64", 4 * k)), b.int("i32", 0)),
                      {"space": "shared", "align": 4}, guard=first))
    b.append(Inst("barrier", (), (b.int("i32", 0),), {"kind": "sync"}))
    b.block = saved
    for inst in scratch.insts:
        inst.text = _INIT_TEXT  # marks the prologue (its first instruction) as present
    entry.insts[:0] = scratch.insts


def _word_of(b: Builder, bid: Value, count: Value) -> Value | None:
    """The barrier's word (None in a device function: a trap), after the checks of id and count."""
    if b.fn.kind != "kernel":
        b.append(Inst("trap", attrs={"kind": "illegal_instruction"}))  # the code after it is never reached
        b.goto(b.new_block("nbdead"))
        return None
    _zero_on_entry(b)
    ok = b.and1(b.icmp("ule", bid, b.int("i32", NAMED_BARRIERS - 1)), b.icmp("ne", count, b.int("i32", 0)))
    ok = b.and1(ok, b.icmp("eq", b.op("and", "i32", count, b.int("i32", 31)), b.int("i32", 0)))
    _trap_unless(b, ok, "nbar")
    word = b.op("add", "i64", _words_base(b), b.op("zext", "i64", b.op("shl", "i32", bid, b.int("i32", 2))))
    b.append(Inst("membar", attrs={"scope": "cta"}))
    return word


def _read(b: Builder, word: Value) -> Value:
    return b.op("atomic", "i32", word, b.int("i32", 0), space="shared", aop="or")


def _spin_until_clear(b: Builder, word: Value, cur: Var, hint: str) -> None:
    """Read the word into ``cur`` until it is not draining (each try a SIMD-group scheduling point)."""
    look, ok = b.new_block(f"{hint}look"), b.new_block(f"{hint}clear")
    b.br(look)
    b.goto(look)
    mask = b.op("activemask", "i32")
    b.op_into(cur, "mov", _read(b, word))
    clear = b.icmp("eq", b.op("and", "i32", cur, b.int("i32", DRAIN)), b.int("i32", 0))
    b.cbr(b.or1(clear, b.icmp("eq", mask, b.int("i32", 0))), ok, look)
    b.goto(ok)


def _expand_reduction(b: Builder, inst: Inst) -> list[Value]:
    bid, count, pred = inst.args
    result = b.fn.new_var(inst.dsts[0].type)
    word = _word_of(b, bid, count)
    if word is None:
        return [b.int(inst.dsts[0].type, 0)]
    vote = b.op("zext", "i32", pred) if pred.type == "i1" else b.select(
        b.icmp("ne", pred, b.int(pred.type, 0)), b.int("i32", 1), b.int("i32", 0))
    cur, seen, votes = b.fn.new_var("i32"), b.fn.new_var("i32"), b.fn.new_var("i32")
    arrive, arrived = b.new_block("nbred"), b.new_block("nbredarrived")
    b.br(arrive)
    b.goto(arrive)
    _spin_until_clear(b, word, cur, "nbredarr")
    voted = b.op("add", "i32", b.op("lshr", "i32", cur, b.int("i32", VOTES_SHIFT)), vote)
    b.op_into(votes, "mov", b.op("and", "i32", voted, b.int("i32", COUNTER)))
    last = b.icmp("eq", b.op("add", "i32", b.op("and", "i32", cur, b.int("i32", COUNTER)), b.int("i32", 1)), count)
    drained = b.op("or", "i32", b.op("or", "i32", b.int("i32", DRAIN),
                                     b.op("shl", "i32", votes, b.int("i32", VOTES_SHIFT))),
                   b.op("sub", "i32", count, b.int("i32", 1)))
    filling = b.op("add", "i32", b.op("add", "i32", cur, b.int("i32", 1)),
                   b.op("shl", "i32", vote, b.int("i32", VOTES_SHIFT)))
    b.op_into(seen, "atomic_cas", word, cur, b.select(last, drained, filling), space="shared")
    b.cbr(b.icmp("eq", seen, cur), arrived, arrive)
    b.goto(arrived)
    done, wait = b.new_block("nbreddone"), b.new_block("nbredwait")
    b.cbr(last, done, wait)  # the completing arrival has every vote: no wait, no departure
    b.goto(wait)
    mask = b.op("activemask", "i32")
    now = _read(b, word)
    draining = b.icmp("ne", b.op("and", "i32", now, b.int("i32", DRAIN)), b.int("i32", 0))
    depart = b.new_block("nbreddepart")
    b.cbr(b.or1(draining, b.icmp("eq", mask, b.int("i32", 0))), depart, wait)
    b.goto(depart)
    b.op_into(votes, "and", b.op("lshr", "i32", now, b.int("i32", VOTES_SHIFT)), b.int("i32", COUNTER))
    b.op_into(cur, "mov", now)
    leave = b.new_block("nbredleave")
    b.br(leave)
    b.goto(leave)
    one_left = b.icmp("eq", b.op("and", "i32", cur, b.int("i32", COUNTER)), b.int("i32", 1))
    new = b.select(one_left, b.int("i32", 0), b.op("sub", "i32", cur, b.int("i32", 1)))
    b.op_into(seen, "atomic_cas", word, cur, new, space="shared")
    swapped = b.icmp("eq", seen, cur)
    b.op_into(cur, "mov", seen)
    b.cbr(swapped, done, leave)
    b.goto(done)
    b.append(Inst("membar", attrs={"scope": "cta"}))
    rop = inst.attrs["rop"]
    if rop == "popc":
        b.op_into(result, "mov", votes)
    else:
        b.op_into(result, "mov", b.icmp("eq", votes, count) if rop == "and" else
                  b.icmp("ne", votes, b.int("i32", 0)))
    return [result]


def _expand(b: Builder, inst: Inst) -> list[Value]:
    if inst.op == "barrier_red":
        return _expand_reduction(b, inst)
    bid, count = inst.args[0], inst.args[1]
    word = _word_of(b, bid, count)
    if word is None:
        return []
    cur, seen = b.fn.new_var("i32"), b.fn.new_var("i32")
    b.op_into(cur, "mov", b.int("i32", 0))
    loop, arrived = b.new_block("nbar"), b.new_block("nbarrived")
    b.br(loop)
    b.goto(loop)
    last = b.icmp("eq", b.op("add", "i32", b.op("and", "i32", cur, b.int("i32", 0xFFFF)), b.int("i32", 1)), count)
    next_gen = b.op("add", "i32", b.op("and", "i32", cur, b.int("i32", -0x10000 & 0xFFFFFFFF)), b.int("i32", 0x10000))
    new = b.select(last, next_gen, b.op("add", "i32", cur, b.int("i32", 1)))
    b.op_into(seen, "atomic_cas", word, cur, new, space="shared")
    swapped = b.icmp("eq", seen, cur)
    b.op_into(cur, "mov", seen)
    b.cbr(swapped, arrived, loop)
    b.goto(arrived)
    if inst.attrs["kind"] == "arrive":
        return []
    # seen is the word before this arrival; the phase is over when the generation moves on
    completed = b.icmp("eq", b.op("add", "i32", b.op("and", "i32", seen, b.int("i32", 0xFFFF)), b.int("i32", 1)),
                       count)
    gen = b.op("lshr", "i32", seen, b.int("i32", 16))
    wait, done = b.new_block("nbwait"), b.new_block("nbdone")
    b.cbr(completed, done, wait)
    b.goto(wait)
    mask = b.op("activemask", "i32")
    now = b.op("lshr", "i32", b.op("atomic", "i32", word, b.int("i32", 0), space="shared", aop="or"),
               b.int("i32", 16))
    over = b.or1(b.icmp("ne", now, gen), b.icmp("eq", mask, b.int("i32", 0)))
    b.cbr(over, done, wait)
    b.goto(done)
    b.append(Inst("membar", attrs={"scope": "cta"}))
    return []


RULE = Rule(
    ops=("barrier", "barrier_red"),
    key="async.named_barrier",
    summary="bar.sync/bar.arrive/bar.red with a thread count -> a counter (and generation, or votes) per barrier "
            "id in threadgroup scratch (compare-and-swap arrivals, waits at a SIMD-group scheduling point)",
    matches=_matches, expand=_expand, emits=("atomic_cas",), cfg=True)

