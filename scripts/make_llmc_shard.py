"""Cut an llm.c token shard to its first N tokens (llm.c's 256-word header: 20240520, 1, count).

    python scripts/make_llmc_shard.py train.bin train_small.bin --tokens 2561

train_gpt2_fp32.cu trains for one epoch of its train shard, so a shorter shard is how a run of
a few steps is asked for (it has no step-count option).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

DATA_MAGIC, DATA_VERSION, HEADER_WORDS = 20240520, 1, 256


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("source", type=Path)
    ap.add_argument("dest", type=Path)
    ap.add_argument("--tokens", type=int, required=True)
    args = ap.parse_args()
    raw = args.source.read_bytes()
    header = np.frombuffer(raw[: 4 * HEADER_WORDS], dtype="<i4").copy()
    if header[0] != DATA_MAGIC or header[1] != DATA_VERSION:
        ap.error(f"{args.source}: not an llm.c token shard (magic {header[0]}, version {header[1]})")
    tokens = np.frombuffer(raw[4 * HEADER_WORDS:], dtype="<u2")[: args.tokens]
    header[2] = len(tokens)
    args.dest.write_bytes(header.tobytes() + tokens.tobytes())


if __name__ == "__main__":
    main()
