"""``air_inspect FILE [--json]``: show what a ``.metallib`` contains (header, sections, functions).

Reads the container only (fast even for 17k-kernel libraries); ``air_validate`` checks it.
Exit status: 0 shown, 1 unreadable file, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from cumetal.backends.air.metallib import FUNCTION_TYPE_NAMES, Metallib, MetallibFunction, read_metallib
from cumetal.backends.air.metallib_problem import MetallibFormatError
from cumetal.backends.air.metallib_wrapper import read_wrapper
from cumetal.tools import quiet_on_closed_pipe


def _version(pair: tuple[int, int]) -> str:
    return f"{pair[0]}.{pair[1]}"


def header_summary(lib: Metallib) -> dict[str, Any]:
    h = lib.header
    ext = lib.extension
    return {
        "platform": f"0x{h.platform:04x}",
        "container_version": _version(h.container_version),
        "file_type": h.file_type,
        "target_os": f"0x{h.target_os:02x}",
        "os_version": _version(h.os_version),
        "file_size": h.file_size,
        "sections": {
            name: {"offset": sec.offset, "size": sec.size}
            for name, sec in (
                ("function_list", h.function_list),
                ("public_metadata", h.public_metadata),
                ("private_metadata", h.private_metadata),
                ("bitcode", h.bitcode),
                *sorted(ext.sections.items()),
            )
        },
        "extension_tags": [t.name for t in ext.tags],
        "uuid": ext.uuid.hex() if ext.uuid else None,
        "function_count": len(lib.functions),
    }


def function_summary(lib: Metallib, f: MetallibFunction) -> dict[str, Any]:
    blob = lib.module(f)
    try:
        bitcode_size: int | None = read_wrapper(blob).bitcode_size
    except ValueError:
        bitcode_size = None
    return {
        "name": f.name,
        "type": FUNCTION_TYPE_NAMES.get(f.function_type, f"unknown({f.function_type})"),
        "type_code": f.function_type,
        "hash": f.hash.hex(),
        "hash_ok": lib.hash_ok(f),
        "air_version": _version(f.air_version),
        "language_version": _version(f.language_version),
        "module_offset": f.module_offset,
        "module_size": f.module_size,
        "bitcode_size": bitcode_size,
        "offsets": list(f.offsets),
        "tags": list(f.tag_order),
        "public_metadata_tags": [t.name for t in f.public_metadata.tags],
        "private_metadata_tags": [t.name for t in f.private_metadata.tags],
    }


def _print_text(path: str, lib: Metallib, out) -> None:
    h = header_summary(lib)
    print(
        f"{path}: metallib container {h['container_version']}, macOS {h['os_version']}, {h['file_size']} bytes",
        file=out,
    )
    for name, sec in h["sections"].items():
        print(f"  {name:<17} offset 0x{sec['offset']:08x}  size {sec['size']}", file=out)
    print(f"  extension tags: {' '.join(h['extension_tags']) or '(none)'}", file=out)
    print(f"  {len(lib.functions)} functions:", file=out)
    for f in lib.functions:
        s = function_summary(lib, f)
        print(
            f"    {s['name']}  {s['type']}  AIR {s['air_version']} MSL {s['language_version']}  "
            f"module {s['module_size']} B at 0x{s['module_offset']:x}  hash {'ok' if s['hash_ok'] else 'MISMATCH'}",
            file=out,
        )


def _main(argv: Sequence[str] | None) -> int:
    parser = argparse.ArgumentParser(prog="air_inspect", description="Show the contents of a .metallib file.")
    parser.add_argument("file", help=".metallib file")
    parser.add_argument("--json", action="store_true", help="print a JSON object instead of a summary")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage (0 for --help); return it instead
        return exc.code if isinstance(exc.code, int) else 2
    try:
        with open(args.file, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        print(f"air_inspect: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        lib = read_metallib(data)
    except MetallibFormatError as exc:
        print(f"{args.file}: {exc.problem}", file=sys.stderr)
        return 1
    if args.json:
        doc = {"header": header_summary(lib), "functions": [function_summary(lib, f) for f in lib.functions]}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        _print_text(args.file, lib, sys.stdout)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return quiet_on_closed_pipe(lambda: _main(argv))


if __name__ == "__main__":
    sys.exit(main())
