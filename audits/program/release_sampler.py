"""A program's final release as a black-box sampler: the form in which the black box confirms a finding on a pair
of datasets (:func:`release_samplers`), every release a fixed-width row of numbers."""

from __future__ import annotations

import zlib
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program import trace
from pdp_audit.audits.program.sources import sources_drawn
from pdp_audit.mechanisms.base import MalformedPair
from pdp_audit.verify.core.float_rules import user_modules
from pdp_audit.verify.estimators.rng_discipline import SeededPerRelease
from pdp_audit.verify.inputs import release_codec


class ReleaseSampler:
    """The program's final release on one dataset as a black-box sampler ``(size, rng) -> (size, width)``: each
    release from its own generator seeded from ``rng``, encoded as a fixed-width vector -- a hash of its exact
    structure (:func:`~pdp_audit.verify.inputs.release_codec.encode`'s: types, keys in order, pandas labels, the
    residues float64 cannot hold), its length, its count of non-finite numbers, then its numbers (non-finite ones as
    0) padded or cut to ``width − 3``."""

    def __init__(self, program: Callable, data: Any, width: int):
        self.program, self.data, self.width = program, data, width

    def __call__(self, size: int, rng: np.random.Generator) -> np.ndarray:
        seeds = rng.integers(0, 2**63 - 1, size=size)
        out = np.zeros((size, self.width))
        # sys.modules given back once for the block (between two runs only the encoding runs, which imports
        # nothing): checked after every run, it cost more than a small pandas program's run
        with user_modules(), np.errstate(all="ignore"), sources_drawn() as drawing:
            for i, seed in enumerate(seeds):
                generator = np.random.default_rng(int(seed))
                try:
                    with drawing(generator):  # numpy's global state, Python's random …: the release's generator
                        release = trace.call_program(self.program, self.data, generator, modules=False)
                except trace.ProgramFault as fault:  # the black box's word for the user's fault: pair-protocol
                    raise MalformedPair(str(fault)) from None
                out[i] = encoded(release, self.width)
        return out


def encoded(release: Any, width: int) -> np.ndarray:
    """The release as the fixed-width row :class:`ReleaseSampler` describes (its hash a function of the exact
    structure: ``repr`` of a tuple of plain values, the same for the same structure in every process)."""
    encoding = release_codec.encode(release)
    structure, numbers = encoding.structure, encoding.numbers
    row = np.zeros(width)
    row[0] = zlib.crc32(repr(structure).encode()) / 2**32
    row[1] = numbers.size
    finite = np.isfinite(numbers)
    row[2] = float((~finite).sum())
    values = np.clip(np.where(finite, numbers, 0.0), -1e100, 1e100)[: width - 3]  # squares stay finite
    row[3 : 3 + values.size] = values
    return row


def release_samplers(program: Callable, data: Any, neighbour: Any, seed: int) -> SeededPerRelease:
    """The program's releases on D (``data``) and on D′ (``neighbour``) as a pair of :class:`ReleaseSampler`, of one
    width: that of the longest of 4 releases on each (from a generator of ``seed``); each release from its own
    generator (:class:`~pdp_audit.verify.estimators.rng_discipline.SeededPerRelease`)."""
    rng = np.random.default_rng(seed)
    sizes = []
    for d in (data, neighbour):
        for _ in range(4):
            with np.errstate(all="ignore"):
                sizes.append(release_codec.encode(trace.call_program(program, d, rng)).numbers.size)
    width = max(sizes) + 3
    return SeededPerRelease(ReleaseSampler(program, data, width), ReleaseSampler(program, neighbour, width))
