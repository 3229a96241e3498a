"""Mechanisms that ``pdp-audit sweep`` can run: one ``register_sweep`` line per mechanism.

``register_sweep(name, cell_function, parameter_schema, **options)``; see :mod:`verify.sweep`.
"""
from verify import gaussian_sweep
from verify.sweep import register_sweep

register_sweep("gaussian", gaussian_sweep.cell, gaussian_sweep.SCHEMA, normalize=gaussian_sweep.normalize,
               cost=gaussian_sweep.cost, checks=gaussian_sweep.CHECKS, description="Gaussian mechanism (verify/gaussian_run.py)",
               preload=gaussian_sweep.PRELOAD, chunked=True)
