"""Everything the modules added beside the core driver export, gathered for ``cumetal.driver``:
every enum and ``#define`` of cuda-bindings not kept in ``enums.py``, the extra handles and structs,
and the ``cu*`` functions of the launch, library, linker, memory, pool, VMM, graph and misc modules."""

# ruff: noqa: F401, F403
from cumetal.driver import array_copies as _array_copies
from cumetal.driver import callback_types as _callback_types
from cumetal.driver import coredump as _coredump
from cumetal.driver import graph_batch_memop as _graph_batch_memop
from cumetal.driver import graph_generic as _graph_generic
from cumetal.driver import graph_nodes as _graph_nodes
from cumetal.driver import graphs as _graphs
from cumetal.driver import green as _green
from cumetal.driver import handles_more as _handles_more
from cumetal.driver import ipc as _ipc
from cumetal.driver import launch_legacy as _launch_legacy
from cumetal.driver import launch_more as _launch_more
from cumetal.driver import library as _library
from cumetal.driver import linker as _linker
from cumetal.driver import memory_batch as _memory_batch
from cumetal.driver import memory_more as _memory_more
from cumetal.driver import misc as _misc
from cumetal.driver import misc_more as _misc_more
from cumetal.driver import pools as _pools
from cumetal.driver import recapture_location as _recapture_location
from cumetal.driver import single_gpu as _single_gpu
from cumetal.driver import streams_more as _streams_more
from cumetal.driver import unsupported as _unsupported
from cumetal.driver import vmm as _vmm
from cumetal.driver.enums_more import *
from cumetal.driver.enums_more import CONSTANT_NAMES, ENUM_NAMES

_MODULES = (_handles_more, _launch_legacy, _launch_more, _library, _linker, _memory_more, _memory_batch, _misc, _misc_more, _pools, _streams_more, _vmm, _graphs, _graph_nodes, _graph_generic, _callback_types, _array_copies, _ipc,
            _green, _coredump, _single_gpu, _unsupported, _graph_batch_memop,
            _recapture_location)


def _public(module: object) -> dict[str, object]:
    names = {}
    for name, value in vars(module).items():
        if getattr(value, "__module__", None) != module.__name__:  # type: ignore[attr-defined]
            continue
        if name.startswith("cu") or name.startswith("CU"):
            names[name] = value
    return names


_EXPORTS: dict[str, object] = {}
for _m in _MODULES:
    _EXPORTS.update(_public(_m))
globals().update(_EXPORTS)
proc = _misc.proc

__all__ = sorted([*_EXPORTS, *ENUM_NAMES, *CONSTANT_NAMES, "proc"])
