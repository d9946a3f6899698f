"""Stream order for library work: the runtime's streams are asynchronous, so a library operation is
enqueued as a host function on its stream (it runs after earlier work and before later work, on
the runtime's callback thread; captured into a graph when the stream is capturing). Operations
that return a value to host memory synchronise the stream and run in the calling thread, as CUDA's
libraries block for them."""

from __future__ import annotations

from collections.abc import Callable

from cumetal.libs.devmem import LibError, say


def _safe(fn: Callable[[], None], what: str) -> Callable[[object], None]:
    def run(_user_data: object) -> None:
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - reported, the stream goes on (as a failed kernel would not)
            say(f"{what}: failed while running on its stream: {e!r}")
    return run


def submit(stream: int, fn: Callable[[], None], what: str, status_on_error: int) -> None:
    from cumetal import runtime as rt  # noqa: PLC0415

    err = rt.cudaLaunchHostFunc(stream, _safe(fn, what), None)[0]
    if int(err) != 0:
        raise LibError(status_on_error, f"{what}: cannot enqueue on stream 0x{stream:x}: {err!r}")


def synchronize(stream: int, what: str, status_on_error: int) -> None:
    from cumetal import runtime as rt  # noqa: PLC0415

    err = rt.cudaStreamSynchronize(stream)[0]
    if int(err) != 0:
        raise LibError(status_on_error, f"{what}: stream 0x{stream:x} failed: {err!r}")
