"""msl-sim: run emitted MSL on the CPU by compiling it as C++ against ``cumetal_msl_sim.h``."""

from cumetal.backends.msl.sim.launcher import (
    MslProgram,
    SimCompileError,
    SimResult,
    build_batch,
    build_program,
    prebuild,
    run_msl,
)

__all__ = ["MslProgram", "SimCompileError", "SimResult", "build_batch", "build_program", "prebuild", "run_msl"]
