"""``air_validate FILE``: check a ``.metallib`` against every container rule and the AIR metadata
schema of each module; print one line per problem naming the byte offset or kernel and the rule.

Exit status: 0 valid, 1 invalid, 2 usage error (bad arguments, unreadable file).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from cumetal.backends.air.metallib_validate import validate_metallib
from cumetal.tools import quiet_on_closed_pipe


def _main(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(
        prog="air_validate", description="Check a .metallib container and the AIR metadata of its modules."
    )
    parser.add_argument("file", help=".metallib file")
    parser.add_argument(
        "--no-schema", action="store_true", help="check the container only, not the modules' AIR metadata"
    )
    parser.add_argument(
        "--schema-sample",
        type=int,
        metavar="N",
        help="check the AIR metadata of N randomly chosen modules only (large libraries)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed for --schema-sample (default 0)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage (0 for --help); return it instead
        return exc.code if isinstance(exc.code, int) else 2
    if args.schema_sample is not None and args.schema_sample < 0:
        print("air_validate: --schema-sample must not be negative", file=sys.stderr)
        return 2
    try:
        with open(args.file, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        print(f"air_validate: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    sample = None
    if args.schema_sample is not None:
        from cumetal.backends.air.metallib import read_metallib
        from cumetal.backends.air.metallib_problem import MetallibFormatError

        try:
            count = len(read_metallib(data).functions)
        except MetallibFormatError:
            count = 0  # validate_metallib reports why
        sample = set(random.Random(args.seed).sample(range(count), min(args.schema_sample, count)))
    problems = validate_metallib(data, check_schema=not args.no_schema, schema_sample=sample)
    for problem in problems:
        print(f"{args.file}: {problem}")
    if problems:
        print(f"{args.file}: INVALID ({len(problems)} problem{'s' if len(problems) != 1 else ''})")
        return 1
    print(f"{args.file}: valid")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return quiet_on_closed_pipe(lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
