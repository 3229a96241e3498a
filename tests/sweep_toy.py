"""A cheap sweep mechanism for executor and fault tests: a seeded estimate after a short sleep."""

from __future__ import annotations

import os
import signal
import time

from pdp_audit.sweeps.catalogue import SWEEPS
from pdp_audit.sweeps.schema import SweepMechanism
from pdp_audit.sweeps.spec import parse_spec
from pdp_audit.verify.core.config import Option, Range
from pdp_audit.verify.estimators.engine import block_rng


def toy_cell(parameters: dict, seed: int, alpha: float, checks=None) -> dict:
    time.sleep(parameters["sleep"])
    draws = block_rng(seed, "toy", 0).standard_normal(1000) + parameters["x"]
    estimate = float(draws.mean())
    return {
        "verdict": "pass",
        "parameters": {},
        "checks": [
            {
                "id": "toy-mean",
                "title": "mean",
                "verdict": "pass",
                "estimate": estimate,
                "exact": float(parameters["x"]),
                "ci": [estimate - 0.2, estimate + 0.2],
                "level": 1 - alpha,
                "details": {"first_draw": float(draws[0])},
            }
        ],
    }


TOY = SweepMechanism(
    "toy",
    toy_cell,
    {
        "x": Option("x", "int", 0, "", range=Range(0, 1e6)),
        "sleep": Option("sleep", "float", 0.0, "", range=Range(0, 60)),
    },
    checks=("toy-mean",),
)


def toy_spec(cells: int, sleep: float, seed: int = 1) -> str:
    return (
        f'[sweep]\nmechanism = "toy"\nseed = {seed}\n[fixed]\nsleep = {sleep}\n'
        f"[grid]\nx = [{', '.join(str(i) for i in range(cells))}]\n"
    )


def _toy_chunk(args) -> float:
    seed, index, sleep, crash_chunk, marker = args
    if index == crash_chunk and marker and not os.path.exists(marker):  # die once, mid-cell, like an OOM kill
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(sleep)
    return float(block_rng(seed, "toy-chunk", index).standard_normal(100).mean())


def toy_chunked_cell(parameters: dict, seed: int, alpha: float, checks=None, executor=None) -> dict:
    """A cell made of ``chunks`` seeded chunks, mapped over ``executor`` when the sweep splits it."""
    p = parameters
    jobs = [(seed, i, p["sleep"], p["crash_chunk"], p["crash_marker"]) for i in range(p["chunks"])]
    values = list(executor.map(_toy_chunk, jobs) if executor is not None else map(_toy_chunk, jobs))
    return {
        "verdict": "pass",
        "parameters": {},
        "checks": [{"id": "toy-sum", "verdict": "pass", "estimate": sum(values), "details": {"values": values}}],
    }


TOY_CHUNKED = SweepMechanism(
    "toy-chunked",
    toy_chunked_cell,
    {
        "chunks": Option("chunks", "int", 1, "", range=Range(1, 1000)),
        "sleep": Option("sleep", "float", 0.0, "", range=Range(0, 60)),
        "crash_chunk": Option("crash_chunk", "int", -1, "", range=Range(-1, 1000)),
        "crash_marker": Option("crash_marker", "str", "", ""),
    },
    cost=lambda p: p["chunks"] * p["sleep"] + 1e-3,
    chunked=True,
)


TOYS = (TOY, TOY_CHUNKED)


def parse_toy_spec(text: str):
    """A spec over the built-in sweep mechanisms and the toys (which are not among the built-in ones)."""
    return parse_spec(text, mechanisms=(*SWEEPS, *TOYS))


def make_toy_store(path, cells: int = 4, seed: int = 1):
    """A complete store of ``cells`` toy cells at ``path`` (run serially, in this process); returns the path."""
    from pdp_audit.sweeps.executors import SerialExecutor
    from pdp_audit.sweeps.spec import run_sweep
    from pdp_audit.sweeps.store import Store

    spec = parse_toy_spec(toy_spec(cells, 0.0, seed))
    store = Store.for_sweep(path, spec, resume=False)
    try:
        run_sweep(spec, store, SerialExecutor())
    finally:
        store.close()
    return path
