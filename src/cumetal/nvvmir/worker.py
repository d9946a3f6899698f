"""LLVM optimisation and NVPTX code generation in a helper process.

LLVM ends the whole process on some inputs it cannot lower (``LLVM ERROR: Cannot select: …``,
``UNREACHABLE executed``): an unsupported intrinsic in user NVVM IR must not kill the user's Python.
So the linked module goes, as bitcode, to one long-lived worker (``python -m
cumetal.nvvmir.worker``), which optimises it and emits PTX; if LLVM aborts there, the caller gets
an ``NvvmError`` with LLVM's message and the next compile starts a new worker. The worker also keeps
the process-wide ``-nvptx-*`` code-generation settings out of the caller's LLVM.

Protocol: 8-byte little-endian length + pickle, one request and one reply at a time, over the
worker's stdin/stdout; LLVM's own messages go to a temporary file that is read after a crash.
"""

from __future__ import annotations

import atexit
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from typing import Any, BinaryIO


@dataclass
class CodegenRequest:
    bitcode: bytes
    cpu: str
    features: str
    opt_level: int
    prec_div: int        # -nvptx-prec-divf32
    prec_sqrt: int       # -nvptx-prec-sqrtf32
    fma_level: int       # -nvptx-fma-level
    emit_bitcode: bool   # -gen-lto: the optimised module instead of PTX


class CodegenCrash(RuntimeError):
    """LLVM ended the worker; the message is what it printed."""


def _write(stream: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _read(stream: BinaryIO) -> Any:
    head = stream.read(8)
    if len(head) < 8:
        raise EOFError
    (n,) = struct.unpack("<Q", head)
    data = stream.read(n)
    if len(data) < n:
        raise EOFError
    return pickle.loads(data)  # noqa: S301 - our own worker, over a private pipe


# --- the worker process ----------------------------------------------------------------------

def _serve() -> None:
    import llvmlite.binding as llvm  # noqa: PLC0415

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the reply pipe
    _write(stdout, "ready")
    while True:
        try:
            req: CodegenRequest = _read(stdin)
        except EOFError:
            return
        try:
            _write(stdout, {"ok": True, "result": _codegen(llvm, req)})
        except RuntimeError as e:  # llvmlite reports recoverable LLVM errors as RuntimeError
            _write(stdout, {"ok": False, "error": str(e)})


def _codegen(llvm, req: CodegenRequest) -> str | bytes:  # noqa: ANN001
    ctx = llvm.create_context()
    module = llvm.parse_bitcode(req.bitcode, context=ctx)
    try:
        tm = llvm.Target.from_triple(module.triple).create_target_machine(
            cpu=req.cpu, features=req.features, opt=min(req.opt_level, 3))
        pb = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=req.opt_level))
        if req.opt_level == 0:
            mpm = llvm.create_new_module_pass_manager()
            mpm.add_always_inliner_pass()
            mpm.add_global_dead_code_eliminate_pass()
            mpm.add_strip_dead_prototype_pass()
        else:
            mpm = pb.getModulePassManager()
        mpm.run(module, pb)
        module.verify()
        if req.emit_bitcode:
            return module.as_bitcode()
        llvm.set_option("", f"-nvptx-prec-divf32={req.prec_div}")
        llvm.set_option("", f"-nvptx-prec-sqrtf32={req.prec_sqrt}")
        llvm.set_option("", f"-nvptx-fma-level={req.fma_level}")
        return tm.emit_assembly(module)
    finally:
        module.close()
        ctx.close()


# --- the client ------------------------------------------------------------------------------

class _Worker:
    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.pid_owner = 0
        self.log: Any = None
        self.lock = threading.Lock()
        self.unavailable = ""   # why no worker could be started (then code generation runs here)

    def _start(self) -> subprocess.Popen:
        if self.proc is not None and self.proc.poll() is None and self.pid_owner == os.getpid():
            return self.proc
        self.log = tempfile.TemporaryFile()
        env = dict(os.environ)
        # the worker imports cumetal from wherever this process did
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
        proc = subprocess.Popen([sys.executable, "-m", "cumetal.nvvmir.worker"],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, env=env)
        try:
            if _read(proc.stdout) != "ready":
                raise EOFError
        except (EOFError, OSError, pickle.UnpicklingError):
            proc.kill()
            proc.wait()
            self.log.seek(0)
            self.unavailable = self.log.read().decode("utf-8", "replace").strip()[-500:] or "no reply"
            raise
        self.proc = proc
        self.pid_owner = os.getpid()
        return self.proc

    def run(self, req: CodegenRequest) -> str | bytes:
        with self.lock:
            if self.unavailable:
                return _codegen_here(req)
            try:
                proc = self._start()
            except (EOFError, OSError, pickle.UnpicklingError):
                return _codegen_here(req)
            try:
                _write(proc.stdin, req)
                reply = _read(proc.stdout)
            except (EOFError, BrokenPipeError, OSError):
                proc.wait()
                self.log.seek(0)
                message = self.log.read().decode("utf-8", "replace").strip()
                self.proc = None
                raise CodegenCrash(_crash_text(message, proc.returncode)) from None
        if not reply["ok"]:
            raise RuntimeError(reply["error"])
        return reply["result"]

    def close(self) -> None:
        if self.proc is not None and self.pid_owner == os.getpid():
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
        self.proc = None


def _crash_text(message: str, code: int | None) -> str:
    lines = [ln for ln in message.splitlines() if ln.strip() and not ln.startswith(("Stack dump", " #", "#"))
             and "PLEASE submit a bug report" not in ln and not ln.lstrip().startswith("0x")]
    essential = [ln for ln in lines if "LLVM ERROR" in ln or "UNREACHABLE" in ln or "error" in ln.lower()]
    text = "\n".join((essential or lines)[:8])
    return text or f"the code generator stopped (exit status {code})"


_WORKER = _Worker()
atexit.register(_WORKER.close)


def _can_spawn_python() -> bool:
    # Inside an application that embeds Python (libcumetal), sys.executable is that application:
    # starting it with "-m" would run the application. Then (or with CUMETAL_NVVM_INPROCESS=1)
    # the code generator runs in this process.
    if os.environ.get("CUMETAL_NVVM_INPROCESS", "") not in ("", "0"):
        return False
    exe = os.path.basename(sys.executable or "").lower()
    return exe.startswith(("python", "pypy"))


_inprocess_lock = threading.Lock()


def _codegen_here(req: CodegenRequest) -> str | bytes:
    import llvmlite.binding as llvm  # noqa: PLC0415

    with _inprocess_lock:
        try:
            return _codegen(llvm, req)
        finally:  # the -nvptx-* settings are process-wide: put LLVM's defaults back
            llvm.set_option("", "-nvptx-prec-divf32=2")
            llvm.set_option("", "-nvptx-prec-sqrtf32=1")
            llvm.set_option("", "-nvptx-fma-level=2")


def run_codegen(req: CodegenRequest) -> str | bytes:
    """Optimise and emit in the worker; ``CodegenCrash`` when LLVM aborted, ``RuntimeError`` for
    errors llvmlite reports normally."""
    if not _can_spawn_python():
        return _codegen_here(req)
    return _WORKER.run(req)


if __name__ == "__main__":
    _serve()
