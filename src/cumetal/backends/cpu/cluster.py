"""Thread-block clusters and grid-wide barriers on the CPU engine.

Co-scheduling: a batch (one activation of the engine) holds whole clusters, each cluster's CTAs
next to each other in rank order (``cluster_order``), and a cooperative launch runs its whole grid
as one batch. Every CTA keeps its own slice of the batch's shared array; distributed shared memory
reaches a sibling's slice through the rank bits of a shared::cluster address (``remote_shared``).

Barrier kinds (IR op ``barrier``): ``cluster_arrive`` counts an arrival per lane; ``cluster_wait``
parks the lane until every live lane of its cluster has arrived as often as it has (a lane that has
exited counts as arrived); ``grid`` parks the lane until every live lane of the batch is parked
there. Parked lanes carry wait kinds ``WAIT_CLUSTER`` / ``WAIT_GRID`` (numbers apart from the
engine's own kinds).
"""

from __future__ import annotations

import numpy as np

from cumetal.backends.cpu.state import WAIT, Ctx, Fault

DSMEM_RANK_SHIFT = 24  # the address layout of passes/semantics/cluster.py
_LOW = np.uint64((1 << DSMEM_RANK_SHIFT) - 1)
WAIT_CLUSTER = 8
WAIT_GRID = 9
KINDS = ("cluster_arrive", "cluster_wait", "grid")
_ARRIVALS = "cluster:arrivals"
_TARGET = "cluster:target"


def cluster_order(grid: tuple[int, int, int], cluster: tuple[int, int, int]) -> np.ndarray | None:
    """Linear CTA ids in cluster-major order (clusters in linear order, each in rank order:
    rank = x + cx * (y + cy * z) within the cluster), or None for clusters of one CTA."""
    if cluster == (1, 1, 1):
        return None
    gx, gy, gz = grid
    cx, cy, cz = cluster
    rx, ry, rz = np.meshgrid(np.arange(cx), np.arange(cy), np.arange(cz), indexing="ij")
    kx, ky, kz = np.meshgrid(np.arange(gx // cx), np.arange(gy // cy), np.arange(gz // cz), indexing="ij")
    # rank order inside a cluster: x fastest; cluster order: x fastest
    rank_xyz = [a.transpose(2, 1, 0).reshape(-1) for a in (rx, ry, rz)]
    clus_xyz = [a.transpose(2, 1, 0).reshape(-1) for a in (kx, ky, kz)]
    x = (clus_xyz[0][:, None] * cx + rank_xyz[0][None, :]).reshape(-1)
    y = (clus_xyz[1][:, None] * cy + rank_xyz[1][None, :]).reshape(-1)
    z = (clus_xyz[2][:, None] * cz + rank_xyz[2][None, :]).reshape(-1)
    return (x + gx * (y + gy * z)).astype(np.uint64)


def set_grouping(batch, cta_ids: np.ndarray | None, cluster: tuple[int, int, int], explicit: bool,
                 cooperative: bool, workspace: int | None = None) -> None:
    """Give a batch its CTA order, cluster shape and launch kind (a batch that never got them is
    a plain launch). ``workspace``: a zeroed device word pair of a cooperative launch, whose
    address %envreg1 (high half) and %envreg2 (low half) give: NVIDIA's cooperative_groups
    headers (nvcc-compiled PTX) build grid_group::sync() on it (an atomic arrival counter and a
    spin on its top bit), and trap when it is null, as in a non-cooperative launch."""
    batch.cta_ids = cta_ids
    batch.cluster = cluster
    batch.explicit_cluster = explicit
    batch.cooperative = cooperative
    batch.grid_workspace = workspace or 0


def envreg(batch, index: int) -> int:
    ws = getattr(batch, "grid_workspace", 0)
    if index == 1:
        return ws >> 32
    if index == 2:
        return ws & 0xFFFFFFFF
    return 0


def cta_ids(batch) -> np.ndarray | None:
    return getattr(batch, "cta_ids", None)


def cluster_size(batch) -> int:
    c = getattr(batch, "cluster", (1, 1, 1))
    return c[0] * c[1] * c[2]


def linear_cta(batch, cta: int) -> int:
    """Linear grid id of batch CTA ``cta``."""
    ids = cta_ids(batch)
    return int(ids[cta]) if ids is not None else batch.cta0 + cta


def cluster_sreg(batch, cta: np.ndarray, base: str, axis: int):
    """%clusterid, %nclusterid, %cluster_ctaid, %cluster_nctaid, %cluster_ctarank,
    %cluster_nctarank, %is_explicit_cluster for batch-local CTAs ``cta``."""
    cx, cy, cz = dims = getattr(batch, "cluster", (1, 1, 1))
    size = cx * cy * cz
    if base == "cluster_nctaid":
        return dims[axis]
    if base == "cluster_nctarank":
        return size
    if base == "nclusterid":
        return batch.grid[axis] // dims[axis]
    if base == "is_explicit_cluster":
        return int(getattr(batch, "explicit_cluster", False))
    if base == "cluster_ctarank":
        return cta % size
    ids = cta_ids(batch)
    if ids is None:
        ids = np.arange(batch.cta0, batch.cta0 + batch.nctas, dtype=np.uint64)
    gx, gy, _ = batch.grid
    c = ids[cta].astype(np.uint64)
    coord = (c % gx, c // gx % gy, c // (gx * gy))[axis]
    if base == "clusterid":
        return coord // dims[axis]
    if base == "cluster_ctaid":
        return coord % dims[axis]
    raise Fault("illegal_instruction", f"unknown special register %{base}")


def remote_shared(ctx: Ctx, m, off: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split shared offsets carrying cluster rank bits: (CTA-local offsets, owning batch CTA per
    lane, lanes whose rank lies outside the cluster)."""
    tag = (off >> np.uint64(DSMEM_RANK_SHIFT)).astype(np.int64)
    local = off & _LOW
    cta = ctx.cta if m is None else ctx.cta[m]
    size = cluster_size(ctx.batch)
    own = cta % size
    rank = np.where(tag == 0, own, tag - 1)
    bad = (rank >= size) | (tag > 0xFF)
    owner = cta - own + np.where(bad, own, rank)
    return local, owner, bad


# ----------------------------------------------------------------------------- barriers
def barrier_term(inst, nxt: int, guard_split):
    kind = inst.attrs.get("kind")

    if kind == "cluster_arrive":
        def arrive(ctx: Ctx, m):
            m = guard_split(inst, ctx, m, nxt)
            if m is not None and len(m) == 0:
                return None
            _arrivals(ctx)[slice(None) if m is None else m] += 1
            if m is None:
                return nxt
            ctx.pc[m] = nxt
            return None
        return arrive

    wk = WAIT_CLUSTER if kind == "cluster_wait" else WAIT_GRID

    def wait(ctx: Ctx, m):
        m = guard_split(inst, ctx, m, nxt)
        if m is not None and len(m) == 0:
            return None
        if wk == WAIT_GRID and not getattr(ctx.batch, "cooperative", False):
            lane = 0 if m is None else int(m[0])
            from cumetal.backends.cpu.memspace import where_text

            raise Fault("illegal_instruction", "grid-wide barrier (cooperative_groups::grid_group::sync()) in a "
                        "kernel not launched cooperatively (cudaLaunchCooperativeKernel / the cooperative launch "
                        f"attribute): {where_text(ctx, lane, inst)}")
        sel = slice(None) if m is None else m
        if wk == WAIT_CLUSTER:
            _target(ctx)[sel] = _arrivals(ctx)[sel]
        ctx.pc[sel] = WAIT + nxt
        ctx.wait_kind[sel] = wk
        return None
    return wait


def _arrivals(ctx: Ctx) -> np.ndarray:
    a = ctx.cache.get(_ARRIVALS)
    if a is None:
        a = ctx.cache[_ARRIVALS] = np.zeros(ctx.n, dtype=np.int64)
    return a


def _target(ctx: Ctx) -> np.ndarray:
    t = ctx.cache.get(_TARGET)
    if t is None:
        t = ctx.cache[_TARGET] = np.zeros(ctx.n, dtype=np.int64)
    return t


def release(ctx: Ctx, waiting: np.ndarray, alive: np.ndarray) -> np.ndarray | None:
    """Lanes parked at cluster/grid barriers that may go on (None if there are none)."""
    kc = waiting & (ctx.wait_kind == WAIT_CLUSTER)
    kg = waiting & (ctx.wait_kind == WAIT_GRID)
    if not kc.any() and not kg.any():
        return None
    out = np.zeros(ctx.n, dtype=bool)
    if kc.any():
        size = cluster_size(ctx.batch)
        clus = ctx.cta // size
        nclus = (ctx.batch.nctas + size - 1) // size
        least = np.full(nclus, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(least, clus[alive], _arrivals(ctx)[alive])
        out |= kc & (_target(ctx) <= least[clus])
    if kg.any() and not (alive & ~kg).any():
        out |= kg
    return out

