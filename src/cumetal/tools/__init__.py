"""cumetal.tools: the command-line programs (cumetalc, air_inspect, air_validate, msl_check, mac_check)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def quiet_on_closed_pipe(run: Callable[[], int]) -> int:
    """``run()``, except that a reader that went away (``... | head``) ends the program quietly like
    other Unix tools, with SIGPIPE's status (141), instead of a BrokenPipeError traceback; stdout is
    pointed at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        return run()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + 13
