"""Run numba-cuda on CuMetal in every Python process: ``CUMETAL_NUMBA=1`` plus a ``.pth`` file.

``import cumetal.numba_support`` switches the process that runs it. Programs that start other
Python processes (numba-cuda's own tests run kernels in ``python -c`` subprocesses, so do
multiprocessing pools and job launchers) need the switch in each of them. For that CuMetal offers
an opt-in start-up hook:

    python -m cumetal.numba_support_startup install-pth   # once per environment (cumetal-numba.pth)
    export CUMETAL_NUMBA=1                          # per shell/job: switch numba-cuda to CuMetal

The ``.pth`` line costs nothing while ``CUMETAL_NUMBA`` is unset (Python runs it at start-up; it
only reads the variable). With ``CUMETAL_NUMBA=1`` it imports this module, which waits for
``numba.cuda`` to be imported and runs ``cumetal.numba_support.install()`` just before, so
processes that never use numba-cuda do not load CuMetal either.
``python -m cumetal.numba_support_startup uninstall-pth`` removes the file; ``status`` shows where it is.
"""

from __future__ import annotations

import importlib.abc
import os
import sys
import sysconfig
from pathlib import Path
from typing import Any

ENV = "CUMETAL_NUMBA"
PTH_NAME = "cumetal-numba.pth"
# One line, run by site.py at start-up (lines that start with "import" are executed).
PTH_LINE = (f"import os; os.environ.get({ENV!r}, '0') not in ('', '0') "
            "and __import__('cumetal.numba_support_startup').numba_support_startup.arm()\n")


class _Trigger(importlib.abc.MetaPathFinder):
    """Switches numba-cuda to CuMetal when ``numba.cuda`` is first imported, then steps aside."""

    fired = False

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        # sys.meta_path is being iterated by the import system here: stay in it (removing this
        # finder would make the import skip the next one, numba-cuda's own redirector)
        if fullname == "numba.cuda" and not self.fired:
            self.fired = True
            import cumetal.numba_support  # noqa: F401 - its import runs install()
        return None


def arm() -> None:
    """Install the trigger (idempotent); with numba-cuda already imported, switch now (too late to
    matter, but install() says so)."""
    if "numba.cuda" in sys.modules:
        import cumetal.numba_support  # noqa: F401
        return
    if not any(isinstance(f, _Trigger) for f in sys.meta_path):
        sys.meta_path.insert(0, _Trigger())


def disarm() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _Trigger)]


def site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def install_pth(directory: Path | None = None) -> Path:
    """Write the start-up hook into ``directory`` (default: this environment's site-packages)."""
    path = (directory or site_packages()) / PTH_NAME
    path.write_text(PTH_LINE)
    return path


def uninstall_pth(directory: Path | None = None) -> Path | None:
    path = (directory or site_packages()) / PTH_NAME
    if path.exists():
        path.unlink()
        return path
    return None


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "status"
    if command == "install-pth":
        print(f"wrote {install_pth()}; set {ENV}=1 to run numba-cuda on CuMetal in every Python process")
    elif command == "uninstall-pth":
        removed = uninstall_pth()
        print(f"removed {removed}" if removed else f"no {PTH_NAME} in {site_packages()}")
    elif command == "status":
        path = site_packages() / PTH_NAME
        print(f"{path}: {'installed' if path.exists() else 'not installed'}; "
              f"{ENV}={os.environ.get(ENV, '') or '(unset)'}")
    else:
        print("usage: python -m cumetal.numba_support_startup [install-pth | uninstall-pth | status]",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
