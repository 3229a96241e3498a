"""Driver of the hostile pass's API class: run inside the environment under test (the installed wheel), from a folder
outside the checkout.  Prints one JSON line per input: its id, what happened, and whether it held.

Held means: an invalid argument is refused with an InputError (a ValueError) of one line before the first sample()
call; a valid one (a numpy scalar of a valid value, a Fraction) is accepted; nothing else escapes (no TypeError,
OverflowError, no warning on stderr)."""

from __future__ import annotations

import json
import math
import signal
import sys
import warnings
from decimal import Decimal
from fractions import Fraction

import numpy as np

import pdp_audit

warnings.simplefilter("always")


class Counting:
    """A correct Gaussian pair that counts its draws (σ = 4, sensitivity 1)."""

    output_dim = 1

    def __init__(self):
        self.calls = 0

    def sample(self, world, size, rng):
        self.calls += 1
        return (1.0 if world == "D" else 0.0) + 4.0 * rng.standard_normal((size, 1))

    def privacy_loss(self, outputs):
        return (outputs[:, 0] - 0.5) / 16


class Timeout(BaseException):
    pass


def _alarm(*_):
    raise Timeout()


signal.signal(signal.SIGALRM, _alarm)

BAD_FLOATS = {
    "str": "1",
    "bytes": b"1",
    "true": True,
    "npbool": np.bool_(True),
    "nan": float("nan"),
    "npnan": np.float64("nan"),
    "inf": math.inf,
    "-inf": -math.inf,
    "int10^400": 10**400,
    "neg": -1.0,
    "complex": 1 + 0j,
    "list": [1.0],
    "array1": np.array([1.0]),
    "dict": {},
    "obj": object(),
    "npstr": np.str_("1"),
    "npcomplex": np.complex128(1),
    "array0d_nan": np.array(float("nan")),
}
EITHER = ("Decimal", "array0d")  # fair types a function may read or refuse in one line
GOOD_FLOATS = {
    "np.float32": np.float32(0.5),
    "np.int64": np.int64(1),
    "Fraction": Fraction(1, 2),
    "Decimal": Decimal("0.5"),
    "array0d": np.array(0.5),
}
BAD_INTS = {
    "str": "2000",
    "float_frac": 2000.5,
    "true": True,
    "npbool": np.bool_(True),
    "nan": float("nan"),
    "inf": math.inf,
    "int10^400": 10**400,
    "neg": -5,
    "2^64": 2**64,
    "list": [2000],
    "complex": 2000 + 0j,
    "npfloat_frac": np.float64(1e3 + 0.5),
    "bytes": b"2000",
}
GOOD_INTS = {"np.int64": np.int64(2000), "np.uint16": np.uint16(2000), "float_whole": 2000.0}


def report(case, cls, outcome, held, detail=""):
    print(
        json.dumps({"id": case, "class": cls, "outcome": outcome, "held": held, "detail": str(detail)[:300]}),
        flush=True,
    )


def attempt(case, cls, call, valid, counter=None, timeout=60):
    """Run ``call``; classify: refused before draws / after draws / accepted / other exception / warning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        signal.alarm(timeout)
        try:
            call()
        except pdp_audit.InputError as err:
            signal.alarm(0)
            calls = counter.calls if counter else 0
            line = str(err)
            one = "\n" not in line
            if valid is None:  # an exotic but fair type (Decimal, a 0-d array): read, or refused in one line
                return report(case, cls, "refused in one line", one and not calls, line)
            if valid:
                return report(case, cls, "refused a valid value", False, line)
            if calls:
                return report(case, cls, f"refused after {calls} draws", False, line)
            return report(case, cls, "refused before draws", one, line)
        except Timeout:
            return report(case, cls, "timeout", False, f"> {timeout} s")
        except BaseException as err:  # noqa: BLE001 (any escape is the finding)
            signal.alarm(0)
            calls = counter.calls if counter else 0
            if isinstance(err, TypeError) and "unexpected keyword argument" in str(err) and not calls:
                return report(case, cls, "Python's TypeError for an unknown keyword", True, repr(err)[:200])
            return report(case, cls, f"{type(err).__name__} after {calls} draws", False, repr(err)[:200])
        finally:
            signal.alarm(0)
    leaked = [str(w.message)[:100] for w in caught]
    if leaked:
        return report(case, cls, "warning leaked", False, leaked)
    if valid:
        return report(case, cls, "accepted", True)
    return report(case, cls, "accepted an invalid value", False)


def pair_cases():
    base = {"epsilon": 1.0, "delta": 1e-3, "trials": 2000, "seed": 0, "alpha": 1e-6}
    for fn_name in ("audit_pair", "audit_blackbox"):
        fn = getattr(pdp_audit, fn_name)
        for arg in ("epsilon", "delta", "alpha", "trials", "seed"):
            pool = {**BAD_FLOATS} if arg in ("epsilon", "delta", "alpha") else {**BAD_INTS}
            good = GOOD_FLOATS if arg in ("epsilon", "delta", "alpha") else GOOD_INTS
            if arg == "alpha":
                good = {k: v for k, v in good.items() if k != "np.int64"}
            for label, value in list(pool.items()) + list(good.items()):
                pair = Counting()
                kwargs = {**base, arg: value}
                target = pair if fn_name == "audit_pair" else (pair.sample, pair.sample)
                eps, delta = kwargs.pop("epsilon"), kwargs.pop("delta")
                valid = None if label in EITHER else label in good
                if fn_name == "audit_blackbox" and label == "np.int64" and arg == "delta":
                    valid = False  # delta 1 is out of range anyway
                if arg == "delta" and label == "np.int64":
                    valid = False
                attempt(
                    f"{fn_name}:{arg}={label}", "api-arguments", lambda: fn(target, eps, delta, **kwargs), valid, pair
                )


def coverage_cases():
    for arg, pool, good in (("rho", BAD_FLOATS, {"np.float32": np.float32(0.25)}), ("trials", BAD_INTS, GOOD_INTS)):
        for label, value in list(pool.items()) + list(good.items()):
            calls = Counting()

            def holds(size, rng, calls=calls):
                calls.calls += 1
                return np.ones(size, dtype=bool)

            kwargs = {"rho": 0.25, "trials": 2000, arg: value}
            attempt(
                f"audit_coverage:{arg}={label}",
                "api-arguments",
                lambda: pdp_audit.audit_coverage(holds, kwargs["rho"], trials=kwargs["trials"]),
                label in good,
                calls,
            )


def canary_cases():
    rng = np.random.default_rng(0)
    good_in, good_out = rng.normal(1, 1, 200), rng.normal(0, 1, 200)
    bad_arrays = {
        "strings": np.array(["1", "2", "3"]),
        "objects": np.array([1.0, "a", None], dtype=object),
        "bools": np.array([True, False, True]),
        "complex": np.array([1 + 1j, 2, 3]),
        "masked": np.ma.masked_array([1.0, 2.0, 3.0], mask=[0, 1, 0]),
        "timedelta": np.array([1, 2, 3], dtype="timedelta64[s]"),
        "datetime": np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]"),
        "2d": np.ones((3, 2)),
        "empty": np.array([]),
        "nan": np.array([1.0, np.nan, 2.0]),
        "inf": np.array([1.0, np.inf]),
        "ragged": [[1.0], [1.0, 2.0]],
        "scalar": 3.0,
        "string": "1,2,3",
        "dict": {"a": 1.0, "b": 2.0},
        "set": {1.0, 2.0, 3.0},
        "generator": (x for x in [1.0, 2.0, 3.0]),
        "bytes": b"\x00\x01\x02",
        "none_inside": [1.0, None, 2.0],
        "bool_list": [True, False, True, False],
        "int10^400": [10**400, 1, 2],
        "record": np.zeros(3, dtype=[("a", float)]),
    }
    for label, value in bad_arrays.items():
        attempt(
            f"audit_canary_scores:in={label}",
            "api-arguments",
            lambda: pdp_audit.audit_canary_scores(value, good_out, 1e-5),
            False,
        )
    good_arrays = {
        "float16": good_in.astype(np.float16),
        "int8": np.arange(-50, 50, dtype=np.int8),
        "pandas": __import__("pandas").Series(good_in, index=range(5, 205)),
        "list": list(good_in),
        "extremes": np.array([1e308, -1e308, 1.0, 5e-324] * 10),
        "uint64": np.arange(100, dtype=np.uint64),
    }
    for label, value in good_arrays.items():
        attempt(
            f"audit_canary_scores:in={label}",
            "api-arguments",
            lambda: pdp_audit.audit_canary_scores(value, good_out, 1e-5),
            True,
        )
    for arg, pool, good in (
        ("delta", BAD_FLOATS, {"np.float32": np.float32(1e-5)}),
        ("alpha", BAD_FLOATS, {}),
        ("claim_epsilon", BAD_FLOATS, {"np.int64": np.int64(1)}),
        ("seed", BAD_INTS, {"np.int64": np.int64(3)}),
    ):
        for label, value in list(pool.items()) + list(good.items()):
            kwargs = {"delta": 1e-5, arg: value}
            d = kwargs.pop("delta")
            attempt(
                f"audit_canary_scores:{arg}={label}",
                "api-arguments",
                lambda: pdp_audit.audit_canary_scores(good_in, good_out, d, **kwargs),
                label in good,
            )
    scores = rng.normal(0, 1, 400)
    bits = rng.integers(0, 2, 400)
    bad_bits = {
        "two": np.full(400, 2),
        "neg": -bits,
        "half": bits * 0.5,
        "strings": bits.astype(str),
        "nan": np.where(bits, np.nan, 0),
        "short": bits[:-1],
        "2d": bits.reshape(200, 2),
        "float_noninteger": bits + 0.1,
    }
    for label, value in bad_bits.items():
        attempt(
            f"audit_one_run:included={label}",
            "api-arguments",
            lambda: pdp_audit.audit_one_run(scores, value, 0.0),
            False,
        )
    for label, value in {
        "bools": bits.astype(bool),
        "floats01": bits.astype(float),
        "int8": bits.astype(np.int8),
    }.items():
        attempt(
            f"audit_one_run:included={label}",
            "api-arguments",
            lambda: pdp_audit.audit_one_run(scores, value, 0.0),
            True,
        )
    bad_guesses = {
        "inf": (math.inf, 1),
        "10^400": (10**400, 1),
        "strings": ("1", "2"),
        "one": (1,),
        "three": (1, 2, 3),
        "neg": (-1, 3),
        "bools": (True, False),
        "frac": (1.5, 2),
        "nan": (math.nan, 1),
        "str": "12",
        "zero": (0, 0),
        "too_many": (400, 1),
        "bytes": b"\x01\x02",
        "dict": {1: 2, 3: 4},
        "npstr": np.array(["1", "2"]),
        "complex": (1 + 0j, 2),
    }
    for label, value in bad_guesses.items():
        attempt(
            f"audit_one_run:guesses={label}",
            "api-arguments",
            lambda: pdp_audit.audit_one_run(scores, bits, 0.0, guesses=value),
            False,
        )
    for label, value in {
        "np.int64": (np.int64(10), np.int64(10)),
        "array": np.array([10, 10]),
        "list": [10, 10],
        "floats": (10.0, 10.0),
    }.items():
        attempt(
            f"audit_one_run:guesses={label}",
            "api-arguments",
            lambda: pdp_audit.audit_one_run(scores, bits, 0.0, guesses=value),
            True,
        )
    for arg in ("delta", "alpha", "claim_epsilon"):
        for label, value in BAD_FLOATS.items():
            kwargs = {"delta": 0.0, arg: value}
            d = kwargs.pop("delta")
            attempt(
                f"audit_one_run:{arg}={label}",
                "api-arguments",
                lambda: pdp_audit.audit_one_run(scores, bits, d, **kwargs),
                False,
            )


def other_cases():
    for fn in ("gaussian_delta", "gaussian_epsilon", "gaussian_sigma"):
        f = getattr(pdp_audit, fn)
        for label, value in BAD_FLOATS.items():
            attempt(f"{fn}:first={label}", "api-arguments", lambda: f(value, 1.0), False)
        for label, value in {
            "sens_inf": (1.0, 1.0, math.inf),
            "sens_str": (1.0, 1.0, "1"),
            "sens_true": (1.0, 1.0, True),
            "sigma_10^400": (0.5, 10**400),
            "sigma_0": (0.5, 0.0),
            "sigma_neg": (0.5, -1.0),
        }.items():
            attempt(f"{fn}:{label}", "api-arguments", lambda: f(*value), False)
    for label, value in {
        "int": 3,
        "none": None,
        "bytes": b"gaussian",
        "list": ["gaussian"],
        "unknown": "gaussianx",
        "nul": "gauss\x00ian",
        "newline": "gaussian\n",
    }.items():
        attempt(f"run_audit:name={label}", "api-arguments", lambda: pdp_audit.run_audit(value, trials=1000), False)
    for label, kwargs in {
        "trials_str": {"trials": "1000"},
        "trials_true": {"trials": True},
        "trials_10^400": {"trials": 10**400},
        "seed_inf": {"seed": math.inf},
        "alpha_str": {"alpha": "1e-6"},
        "workers_true": {"workers": True},
        "workers_10^400": {"workers": 10**400},
        "epsilon_nan": {"epsilon": math.nan, "trials": 1000},
        "unknown_kw": {"trialz": 1000},
        "paper_claims_str": {"paper_claims": "no", "trials": 1000},
        "progress_str": {"progress": "no", "trials": 1000},
        "sigma_np_str": {"sigma": np.str_("2"), "trials": 1000},
    }.items():
        attempt(f"run_audit:{label}", "api-arguments", lambda: pdp_audit.run_audit("gaussian", **kwargs), False)
    for label, value in {
        "int": 3,
        "none": None,
        "list": [],
        "dict_empty": {},
        "dict_bad": {"mechanism": 3},
        "dir": ".",
        "missing": "nope.toml",
        "devnull": "/dev/null",
        "bytes": b"x.toml",
    }.items():
        attempt(f"certify:deployment={label}", "api-arguments", lambda: pdp_audit.certify(value), False)
    for label, value in {"none": None, "int": 3, "dir": ".", "missing": "nope.sqlite", "devzero": "/dev/zero"}.items():
        attempt(f"read_sweep:path={label}", "api-arguments", lambda: pdp_audit.read_sweep(value), False, timeout=20)
    for label, value in {"none": None, "int": 3, "str": "x", "object": object()}.items():
        attempt(
            f"write_report:run={label}", "api-arguments", lambda: pdp_audit.write_report(value, json="w.json"), False
        )
    for label, value in {
        "none": None,
        "int": 3,
        "noprotocol": object(),
        "tuple_fns": (lambda *a: 1, lambda *a: 1),
    }.items():
        attempt(f"check_pair:pair={label}", "api-arguments", lambda: pdp_audit.check_pair(value), False)
    for label, kwargs in {
        "per_instance_str": {"per_instance": "yes"},
        "exact_delta_inf": {"exact_delta": math.inf},
        "exact_delta_str": {"exact_delta": "0.1"},
        "exact_delta_10^400": {"exact_delta": 10**400},
        "unknown_kw": {"trialz": 5},
    }.items():
        pair = Counting()
        attempt(
            f"audit_pair:{label}",
            "api-arguments",
            lambda: pdp_audit.audit_pair(pair, 1.0, 1e-3, trials=2000, **kwargs),
            False,
            pair,
        )
    for label, kwargs in {
        "progress_str": {"progress": "yes"},
        "budget_str": {"budget": "big"},
        "budget_int": {"budget": 3},
    }.items():
        pair = Counting()
        attempt(
            f"audit_blackbox:{label}",
            "api-arguments",
            lambda: pdp_audit.audit_blackbox((pair.sample, pair.sample), 1.0, 1e-3, trials=2000, **kwargs),
            False,
            pair,
        )


if __name__ == "__main__":
    only = sys.argv[1] if len(sys.argv) > 1 else "all"
    for name, fn in (
        ("pair", pair_cases),
        ("coverage", coverage_cases),
        ("canary", canary_cases),
        ("other", other_cases),
    ):
        if only in ("all", name):
            fn()
