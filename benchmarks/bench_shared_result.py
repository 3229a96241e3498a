"""What writing a pass's losses into memory shared with the workers would cost, against the copy the parent makes now.

Issue 44 asked whether a pool's workers should write their losses straight into a result array shared with the
parent (an anonymous shared file, ``memfd_create``) instead of into reused slots that the parent copies out of
(:class:`pdp_audit.verify.estimators.engine.SharedSlots`).  Shared memory is shmem: on Linux's default settings
(``/sys/kernel/mm/transparent_hugepage/shmem_enabled`` = never) its pages are 4 KiB, each allocated and zeroed as it
is first written, where the parent's result (numpy's large arrays: transparent huge pages) takes 2 MiB at a time.
Prints one JSON line: CPU microseconds per 2^16-float64 block (512 KiB) of

* ``copy_us``: the parent's way -- a block copied from a warm slot into a fresh result array;
* ``pwrite_us``: a worker's ``pwrite`` of the block into a fresh shared file (the cheapest way in);
* ``mmap_us``: a worker's mapping of its part of the shared file and writing the block there;
* ``parent_map_us``: the parent's mapping of the shared result's pages afterwards (``MAP_POPULATE``), which the
  copy's way does not need;

and the ratios of the shared ways to the copy, best of ``--repeats``.  On two cores the workers' CPU and the
parent's add up to the wall time, so a shared result pays unless ``pwrite_us + parent_map_us`` < ``copy_us``.

    python benchmarks/bench_shared_result.py [--blocks 320] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import time

import numpy as np

BLOCK = 1 << 16
BYTES = BLOCK * 8


def best_cpu(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def fresh_file(blocks: int) -> int:
    fd = os.memfd_create("pdp-audit-bench", os.MFD_CLOEXEC)
    os.ftruncate(fd, blocks * BYTES)
    return fd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=320)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if not hasattr(os, "memfd_create"):
        print(json.dumps({"benchmark": "shared_result", "skipped": "no memfd_create on this system"}))
        return
    blocks, source = args.blocks, np.random.default_rng(0).standard_normal(BLOCK)
    slot = source.copy()
    files: list[int] = []

    def copy() -> None:
        result = np.empty(blocks * BLOCK)
        for b in range(blocks):
            result[b * BLOCK : (b + 1) * BLOCK] = slot

    def pwrite() -> None:
        fd = fresh_file(blocks)
        files.append(fd)
        for b in range(blocks):
            os.pwrite(fd, source, b * BYTES)

    def mapped() -> None:
        fd = fresh_file(blocks)
        for b in range(blocks):
            with mmap.mmap(fd, BYTES, offset=b * BYTES) as part:
                np.frombuffer(part, dtype=np.float64)[:] = source
        os.close(fd)

    def parent_map() -> None:
        fd = files.pop()
        with mmap.mmap(fd, blocks * BYTES, flags=mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)):
            pass
        os.close(fd)

    runs = {}
    for name, fn in (("copy", copy), ("mmap", mapped)):
        runs[name] = best_cpu(fn, args.repeats) / blocks * 1e6
    pwrites, maps = [], []
    for _ in range(args.repeats):
        pwrites.append(best_cpu(pwrite, 1))
        maps.append(best_cpu(parent_map, 1))
    runs["pwrite"], runs["parent_map"] = min(pwrites) / blocks * 1e6, min(maps) / blocks * 1e6
    shmem = "unknown"
    try:
        with open("/sys/kernel/mm/transparent_hugepage/shmem_enabled") as f:
            shmem = next((w.strip("[]") for w in f.read().split() if w.startswith("[")), "unknown")
    except OSError:
        pass
    print(
        json.dumps(
            {
                "benchmark": "shared_result",
                **{f"{name}_us": round(us, 1) for name, us in runs.items()},
                "pwrite_and_map_over_copy": round((runs["pwrite"] + runs["parent_map"]) / runs["copy"], 2),
                "mmap_over_copy": round(runs["mmap"] / runs["copy"], 2),
                "shmem_enabled": shmem,
                "blocks": blocks,
                "load_1min": round(os.getloadavg()[0], 2),
                "cpus": os.cpu_count(),
            }
        )
    )


if __name__ == "__main__":
    main()
