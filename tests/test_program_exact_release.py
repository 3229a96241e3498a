"""The program audit compares releases exactly (issue 70, item 1): a program that carries its data in the
release's representation -- the sign of a zero, an int64 beyond 2^53, the release's type, a dict's key order, a
Series' name, a DataFrame's attrs, a longdouble below float64's precision, a NaN's payload -- beside honestly noised
numbers is never certified.  Each program releases a noisy clipped sum (Laplace of scale 1: (1, 0)-DP for the
real-valued law) and, in the representation only, whether the dataset has 8 records (D) or 7 (D less one record).

Seen failing: before the audit read releases through the exact codec (``verify/inputs/release_codec.py``), every one
of these programs was certified (verdict pass, exit 0) at ``law="ideal"``: the float64 view of D's and D′'s releases
was the same.  Now each is refuted: the black box reads a release as a row that is a function of its exact encoding
(``audits/program/release_sampler.py``), and every part its value columns drop is an event it can use.  The NaN's
payload, a NaN against an infinity, the sign of an infinity and a value beyond 1e100 were undecided (exit 3) until
the row hashed the bits of the numbers its value columns do not hold.  A generator is refused in one line, exit 2
(it was compared by its ``repr``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pdp_audit
from pdp_audit.audits.program import trace
from pdp_audit.cli import main as cli
from pdp_audit.verify.inputs.release_codec import UnencodableRelease

# the commands' work in this process: these tests are not of the process boundary (tests/in_process.py)
pytestmark = pytest.mark.commands_in_process

VALUES = np.array([0, 1, 2, 3, 5, 6, 7, 8]) / 8  # dyadic: exact sums, the honest twin certified at exactly ε
OPTIONS = {"bounds": (0, 1), "trials": 2000, "seed": 0, "alpha": 1e-6, "law": "ideal"}


def _noisy(data, rng) -> float:
    return float(np.clip(np.nan_to_num(np.asarray(data, dtype=float)), 0.0, 1.0).sum() + rng.laplace(0.0, 1.0))


def _full(data) -> bool:
    """Whether the dataset has all 8 records: the one bit each program below hides in its release's form."""
    return len(data) > 7


def zero_sign(data, rng):
    return _noisy(data, rng), 0.0 if _full(data) else -0.0


def big_int64(data, rng):
    return _noisy(data, rng), np.int64(2**60 + len(data))  # 2^60 + 8 and 2^60 + 7: one float64


def int_or_float(data, rng):
    return _noisy(data, rng), 1 if _full(data) else 1.0


def int_or_bool(data, rng):
    return _noisy(data, rng), 1 if _full(data) else True


def key_order(data, rng):
    noisy = _noisy(data, rng)
    return {"sum": noisy, "zero": 0.0} if _full(data) else {"zero": 0.0, "sum": noisy}


def series_name(data, rng):
    return pd.Series([_noisy(data, rng)], name="full" if _full(data) else "short")


def frame_attrs(data, rng):
    frame = pd.DataFrame({"sum": [_noisy(data, rng)]})
    frame.attrs["records"] = len(data)
    return frame


def long_double(data, rng):
    return _noisy(data, rng), np.longdouble(1) + np.longdouble(len(data)) * np.longdouble(2.0**-60)


def nan_payload(data, rng):
    return _noisy(data, rng), np.array([0x7FF8000000000000 | len(data)], dtype=np.uint64).view(np.float64)


def float32_nan_payload(data, rng):
    return _noisy(data, rng), np.array([0x7FC00000 | len(data)], dtype=np.uint32).view(np.float32)


def nan_or_infinity(data, rng):
    return _noisy(data, rng), np.inf if _full(data) else np.nan


def infinity_sign(data, rng):
    return _noisy(data, rng), np.inf if _full(data) else -np.inf


def beyond_1e100(data, rng):
    return [_noisy(data, rng), 1e200 * len(data)]  # 8e200 and 7e200: a value column clips both to 1e100


#: Each hides one bit in its release's form, and the black box's reading of a release shows it (module notes).
HOSTILE = [
    zero_sign,
    big_int64,
    int_or_float,
    int_or_bool,
    key_order,
    series_name,
    frame_attrs,
    long_double,
    nan_payload,
    float32_nan_payload,
    nan_or_infinity,
    infinity_sign,
    beyond_1e100,
]


@pytest.mark.tier2(representatives=("zero_sign",))
@pytest.mark.parametrize("program", HOSTILE, ids=[h.__name__ for h in HOSTILE])
def test_data_in_the_releases_representation_is_refuted(program):
    run = pdp_audit.audit_program(program, VALUES, 1.0, 0.0, **OPTIONS)
    summary = [(c.id, c.verdict, c.note[:160]) for c in run.checks]
    structure = next(c for c in run.checks if c.id == "program-structure")
    assert structure.verdict != "pass" and structure.details.get("witness"), summary
    assert (run.verdict, run.exit_code) == ("fail", 1), summary


def honest(data, rng):
    """The same release with no bit hidden: certified (the hostile programs' noise alone is (1, 0)-DP)."""
    return _noisy(data, rng), 0.0


def test_the_same_release_without_the_hidden_bit_is_certified():
    run = pdp_audit.audit_program(honest, VALUES, 1.0, 0.0, **OPTIONS)
    assert run.verdict == "pass", [(c.id, c.verdict, c.note[:160]) for c in run.checks]


def generator_release(data, rng):
    return (x + rng.laplace(0.0, 1.0) for x in np.clip(data, 0.0, 1.0))


def test_a_release_that_cannot_be_encoded_exactly_is_an_input_error_not_a_fault():
    """Refused after the call, by the codec: an InputError naming what was returned, never "the program raised"."""
    with pytest.raises(UnencodableRelease, match="the program returned a generator"):
        trace.record(generator_release, VALUES)
    with pytest.raises(UnencodableRelease, match="returned a generator"):
        pdp_audit.audit_program(generator_release, VALUES, 1.0, 0.0, **OPTIONS)


def test_a_generator_release_is_exit_2_in_one_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "lazy_stats.py").write_text(
        "def lazy(data, rng):\n    return (v + rng.laplace(0.0, 1.0) for v in data['value'])\n", encoding="utf-8"
    )
    (tmp_path / "people.csv").write_text("value\n" + "".join(f"{v!r}\n" for v in VALUES.tolist()), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    args = ["program", "lazy_stats:lazy", "--data", "people.csv", "--claim-epsilon", "1", "--claim-delta", "0"]
    assert cli.main([*args, "--bounds", "0,1", "--trials", "2000", "--report", "none"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "returned a generator, which cannot be compared exactly" in err, err
    assert "Traceback" not in err and "raised" not in err
