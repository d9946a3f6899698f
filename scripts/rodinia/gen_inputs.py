"""Inputs for the Rodinia programs whose data files are not in the repository (docs/rodinia.md):
hotspot/hotspot3D temperature and power grids, a random BFS graph in Rodinia's text format, and a
hurricane record file for nn in the fixed-width layout its generator writes. Deterministic (seeded).

    python scripts/rodinia/gen_inputs.py <rodinia>/cuda/gen
"""

from __future__ import annotations

import random
import sys
from pathlib import Path


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    n = 64
    for name, count, lo, hi in (("temp_64", n * n, 320, 340), ("power_64", n * n, 0, 0.005),
                                ("temp_64x8", n * n * 8, 320, 340), ("power_64x8", n * n * 8, 0, 0.005)):
        (out / name).write_text("".join(f"{rng.uniform(lo, hi):.6f}\n" for _ in range(count)))
    nodes = 4096
    adj = [[rng.randrange(nodes) for _ in range(rng.randint(1, 6))] for _ in range(nodes)]
    lines, start = [str(nodes)], 0
    for a in adj:
        lines.append(f"{start} {len(a)}")
        start += len(a)
    lines += ["", "0", "", str(start)] + [f"{d} {rng.randint(1, 10)}" for a in adj for d in a]
    (out / "graph4096.txt").write_text("\n".join(lines) + "\n")
    rng = random.Random(8)
    names = ["ALBERTO", "BERYL", "CHRIS", "DEBBY", "ERNESTO"]
    recs = []
    for _ in range(3000):  # the fixed-width layout of Rodinia's hurricane_gen (latitude at column 28)
        year, month, day, hour, num = (rng.randint(1950, 2005), rng.randint(1, 12), rng.randint(1, 28),
                                       rng.randint(0, 23), rng.randint(0, 99))
        name, lat, lon, speed, press = (rng.choice(names), rng.uniform(7, 70), rng.uniform(0, 359),
                                        rng.randint(0, 160), rng.randint(0, 900))
        recs.append(f"{year:4d} {month:2d} {day:2d} {hour:2d} {num:2d} {name:<9s} {lat:5.1f} {lon:5.1f} "
                    f"{speed:4d} {press:4d}")
    (out / "cane.db").write_text("\n".join(recs) + "\n")
    (out / "filelist").write_text("../gen/cane.db\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
