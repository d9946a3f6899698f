"""Record cuBLASLt's algorithm API and the IMMA matrix orders on NVIDIA hardware
(tests/libs/golden/cublaslt_algos_orders_h100.txt).

Runs on a machine with an NVIDIA GPU and CUDA 13's nvcc (one ``run`` on the project's H100, seconds):

    python scripts/make_cublaslt_algo_goldens.py OUTDIR

Builds tests/libs/programs/cublaslt_algos_orders.cu with nvcc against NVIDIA's cublasLt and keeps its
output: per type combination the ids cublasLtMatmulAlgoGetIds returns, the ids cublasLtMatmulAlgoInit
takes, each id's configuration and capabilities, AlgoCheck / matmul statuses with the default, a listed
tile/stage and split-K; the element placement of CUBLASLT_ORDER_COL32, COL4_4R2_8C and COL32_2R_4R4
(byte dumps of cublasLtMatrixTransform's output for matrices holding their row / column numbers), the
leading dimensions it takes, and which int8 matmul order combinations cublasLtMatmul takes. The test
(tests/libs/test_cublaslt_algos_orders.py) builds the same program with cumetalc and compares.

    python scripts/make_cublaslt_algo_goldens.py --table tests/libs/golden/cublaslt_algos_orders_h100.txt \
        > src/cumetal/libs/cublas/lt_algos_h100.py

writes the table CuMetal's algorithm API answers from (ids, capabilities, which ids the H100 refused).
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parent.parent
PROGRAM = REPO / "tests/libs/programs/cublaslt_algos_orders.cu"


# the program's sections, each in its own process (a crash in NVIDIA's library loses one section): the
# orders, the preset algorithm of NVIDIA's sample, each type combination until the program says no more
SECTIONS = [["orders"], ["preset"]] + [["algos", str(i)] for i in range(64)]


# the program's type combinations: name -> (compute type, scale, A, B, C, D types) as cuBLASLt numbers them
COMBOS = {"f32": (68, 0, 0, 0, 0, 0), "tf32": (77, 0, 0, 0, 0, 0), "f16_f32": (68, 0, 2, 2, 2, 2),
          "f16_f16": (64, 2, 2, 2, 2, 2), "bf16": (68, 0, 14, 14, 14, 14), "f64": (70, 1, 1, 1, 1, 1),
          "c32f": (68, 4, 4, 4, 4, 4), "i8_i32": (72, 10, 3, 3, 10, 10), "i8_i8": (72, 0, 3, 3, 3, 3),
          "e4m3_bf16": (68, 0, 28, 28, 14, 14), "f32_pedantic": (69, 0, 0, 0, 0, 0), "fast16f": (74, 0, 0, 0, 0, 0),
          "fast16bf": (75, 0, 0, 0, 0, 0), "f16_f32out": (68, 0, 2, 2, 0, 0), "bf16_f32out": (68, 0, 14, 14, 0, 0),
          "c64f": (70, 5, 5, 5, 5, 5), "e4m3_f32": (68, 0, 28, 28, 0, 0), "e4m3_e4m3": (68, 0, 28, 28, 14, 28),
          "e5m2xe4m3_bf16": (68, 0, 29, 28, 14, 14)}


def parse(path: pathlib.Path) -> dict[str, str]:
    """The golden's "key value" lines as a dict."""
    out = {}
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition(" ")
            out[key] = value
    return out


def ranges(values: list[int]) -> tuple[tuple[int, int], ...]:
    """Sorted runs of consecutive values as (first, last) pairs, in the listed order."""
    out: list[list[int]] = []
    for v in values:
        if out and v == out[-1][1] + 1:
            out[-1][1] = v
        else:
            out.append([v, v])
    return tuple((a, b) for a, b in out)


def table(path: pathlib.Path) -> str:  # noqa: C901 - one pass over the recording
    g = parse(path)
    lists: dict[tuple, int] = {}
    caps: dict[tuple, int] = {}
    ids, algos, picks = {}, {}, {}

    def intern(store: dict, value: tuple) -> int:
        return store.setdefault(value, len(store))

    max_ok = 0
    for name, key in COMBOS.items():
        listed = [int(v) for v in g[f"ids/{name}"].split()[1:]]
        ids[key] = tuple(listed)
        for code, what in ((7, "INVALID_VALUE"), (15, "NOT_SUPPORTED")):
            refused = [int(v) for v in g.get(f"init_refused/{name}/{code}", "0").split()[1:]]
            if code == 7:
                assert refused == list(range(min(refused), 128)), (name, what)
                max_ok = max(max_ok, min(refused) - 1)
        for i in listed:
            cap = {}
            for item in g[f"caps/{name}/{i}"].split():
                attr, _, value = item.partition(":")
                if not value.startswith("st"):
                    cap[int(attr)] = int(value.split("/")[0])
            tiles = [int(v) for v in g[f"tiles/{name}/{i}"].split()[1:]]
            stages = [int(v) for v in g[f"stages/{name}/{i}"].split()[1:]]
            statuses = {int(g[f"default/{name}/{i}"].split()[1])}
            search = g[f"search/{name}/{i}"].split()
            first = None
            if search[0] != "skipped":
                if search[3] != "0":
                    statuses.add(0)
                    first = (int(search[7]), int(search[8]))
                else:
                    statuses.add(int(search[5]))
                statuses.add(int(g[f"splitk/{name}/{i}"].split()[5]))
                statuses.add(int(g[f"badtile/{name}/{i}"].split()[3]))
            refuse = statuses.pop() if len(statuses) == 1 and statuses <= {7, 8} else 0
            algos[key, i] = (intern(caps, tuple(sorted(cap.items()))), intern(lists, ranges(tiles)),
                             intern(lists, ranges(stages)), refuse)
            if first is not None and key not in picks:
                picks[key] = (i, *first)
        if key not in picks:
            picks[key] = (next(i for i in listed if not algos[key, i][3]), 0, 0)
    cap_list = sorted(caps, key=caps.get)
    list_list = sorted(lists, key=lists.get)
    lines = ['"""NVIDIA\'s cuBLASLt algorithms on an H100 (CUDA 13.0), for CuMetal\'s algorithm API: generated by',
             "scripts/make_cublaslt_algo_goldens.py --table from tests/libs/golden/cublaslt_algos_orders_h100.txt;",
             'do not edit."""', "",
             "# (compute type, scale, A, B, C, D types) -> the ids cublasLtMatmulAlgoGetIds returned, in its order",
             "IDS = {"]
    lines += [f"    {k}: {v}," for k, v in ids.items()]
    lines += ["}",
              "# cublasLtMatmulAlgoInit: ids above this were INVALID_VALUE, unlisted ones up to it NOT_SUPPORTED",
              f"MAX_ID = {max_ok}",
              "# tile and stage id lists as runs (first, last)",
              "LISTS = ("]
    lines += [f"    {v}," for v in list_list]
    lines += [")", "# capability attribute -> value (cublasLtMatmulAlgoCapAttributes_t)", "CAPS = ("]
    lines += [f"    {dict(v)}," for v in cap_list]
    lines += [")",
              "# (combination, id) -> (CAPS index, LISTS index of its tiles, of its stages, the status every",
              "# cublasLtMatmulAlgoCheck of it returned on the H100 when that was ARCH_MISMATCH or INVALID_VALUE, else 0)",
              "ALGOS = {"]
    lines += [f"    ({k[0]}, {k[1]}): {v}," for k, v in algos.items()]
    lines += ["}",
              "# combination -> (id, tile, stage): the first listed id and configuration AlgoCheck took for a 64^3 TN matmul",
              "PICKS = {"]
    lines += [f"    {k}: {v}," for k, v in picks.items()]
    lines += ["}", ""]
    return "\n".join(lines)


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--table":
        sys.stdout.write(table(pathlib.Path(sys.argv[2])))
        return 0
    out_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out_dir.mkdir(parents=True, exist_ok=True)
    exe = out_dir / "cublaslt_algos_orders"
    subprocess.run(["nvcc", "-arch=sm_90", "-O2", str(PROGRAM), "-o", str(exe), "-lcublasLt"], check=True)
    text = ""
    for args in SECTIONS:
        proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300, check=False)
        if proc.returncode == 3:  # past the last type combination
            break
        text += proc.stdout
        if proc.returncode:  # NVIDIA's library crashed on one combination: say so, go on with the next
            text += f"exit {' '.join(args)} {proc.returncode}\n"
        sys.stderr.write(proc.stderr)
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True, check=False).stdout.strip()
    nvcc = subprocess.run(["nvcc", "--version"], capture_output=True, text=True, check=False).stdout.strip()
    header = f"# {gpu}; {nvcc.splitlines()[-1] if nvcc else 'nvcc'}\n"
    (out_dir / "cublaslt_algos_orders_h100.txt").write_text(header + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
