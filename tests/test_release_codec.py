"""The exact release codec (``verify/inputs/release_codec.py``): two releases encode alike iff they are the same
objects of the same types holding the same bits, keys in the same order.  Seen failing: with ``encode`` read through
the program audit's former float64 encoding (``trace.flattened``: dict keys sorted, ``astype(float)``), 15 of the 16
fail (float32/16 NaNs, ints above 2^53, types, key order, pandas names and attrs, longdouble, the refusals); float64's
bits it kept (the audit then compared them as values: ``trace``'s tests show that)."""

from __future__ import annotations

import collections

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pdp_audit.verify.inputs.release_codec import UnencodableRelease, differ, encode, same
from pdp_audit.verify.inputs.validation import InputError

BITS = st.integers(0, 2**64 - 1)
PROPERTY = settings(max_examples=200, deadline=None)


def _float(bits: int) -> float:
    return float(np.array([bits], dtype=np.uint64).view(np.float64)[0])


def _alike(a, b) -> bool:
    x, y = encode(a), encode(b)
    assert (x == y) == (x.key() == y.key()) == same(x, y)
    if x == y:
        assert hash(x) == hash(y)
    return x == y


@PROPERTY
@given(BITS, BITS)
def test_floats_encode_alike_iff_their_bits_are_equal(a, b):
    """The sign of zero and every NaN payload count; Python floats, numpy float64 and arrays of them alike."""
    x, y = _float(a), _float(b)
    assert _alike(x, y) == (a == b)
    assert _alike(np.float64(x), np.float64(y)) == (a == b)
    assert _alike(np.array([1.0, x]), np.array([1.0, y])) == (a == b)
    assert differ(np.array([x]), np.array([y]))[0] == (a != b)


@PROPERTY
@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(0, 2**16 - 1), st.integers(0, 2**16 - 1))
@example(0x7F800001, 0x7FC00001, 0x7C01, 0x7E01)  # a signalling NaN and the quiet NaN it widens to
def test_float32_and_float16_encode_alike_iff_their_bits_are_equal(a, b, c, d):
    """Widening a float32 or float16 to float64 quiets a signalling NaN: its bits are kept apart."""
    as32 = np.array([a, b], dtype=np.uint32).view(np.float32)
    assert _alike(as32[:1].copy(), as32[1:].copy()) == (a == b)  # copies: a view's base and offset are read
    assert _alike(as32[0], as32[1]) == (a == b)
    as16 = np.array([c, d], dtype=np.uint16).view(np.float16)
    assert _alike(as16[:1].copy(), as16[1:].copy()) == (c == d)
    swapped = np.array([b, a], dtype=np.uint32).view(np.complex64)
    assert _alike(np.array([a, b], dtype=np.uint32).view(np.complex64), swapped) == (a == b)


@PROPERTY
@given(st.integers(), st.integers())
def test_python_ints_of_any_size_encode_alike_iff_equal(a, b):
    big = 2**70
    assert _alike(a, b) == (a == b)
    assert _alike(a * big, b * big) == (a == b)
    assert _alike(a * big**20, b * big**20) == (a == b)  # beyond float64's range: the view is infinite


@PROPERTY
@given(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**63), 2**63 - 1), st.integers(0, 2**64 - 1))
def test_int64_and_uint64_encode_alike_iff_equal(a, b, u):
    assert _alike(np.array([a], dtype=np.int64), np.array([b], dtype=np.int64)) == (a == b)
    assert _alike(np.int64(a), np.int64(b)) == (a == b)
    assert _alike(np.uint64(u), np.uint64(u ^ 1)) is False
    assert _alike(np.array([u], dtype=np.uint64), np.array([u], dtype=np.uint64))


@PROPERTY
@given(st.floats(allow_nan=False, allow_infinity=False), st.integers(1, 2**11))
def test_longdouble_below_float64_precision_encodes_apart(x, ulps):
    """Extended-precision values that round to one float64 encode apart (their exact rationals are kept)."""
    if np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("longdouble is float64 on this platform")
    base = np.longdouble(x)
    other = np.nextafter(base, np.longdouble(np.inf)) if ulps == 1 else base + np.longdouble(ulps) * np.spacing(base)
    assert _alike(base, np.longdouble(x))
    assert _alike(base, other) == (base == other)
    assert _alike(np.array([base]), np.array([other])) == (base == other)


@given(st.integers(-3, 3))
def test_the_type_is_part_of_the_release(n):
    values = [n, float(n), complex(n), np.int64(n), np.int32(n), np.float64(n), np.float32(n), np.array(n),
              np.array([n]), [n], (n,), str(n)]  # fmt: skip
    if n in (0, 1):
        values += [bool(n), np.bool_(n)]
    keys = {encode(v).key() for v in values}
    assert len(keys) == len(values)


@PROPERTY
@given(st.permutations(["a", "b", 1, 2.0, (3, "c")]))
def test_a_dicts_key_order_is_part_of_the_release(keys):
    as_given = dict(zip(keys, range(5)))
    ordered = dict(zip(["a", "b", 1, 2.0, (3, "c")], [as_given[k] for k in ["a", "b", 1, 2.0, (3, "c")]]))
    assert _alike(as_given, ordered) == (list(keys) == ["a", "b", 1, 2.0, (3, "c")])
    assert not _alike({1: 0.0}, {1.0: 0.0}) and not _alike({0.0: 1}, {-0.0: 1})


@PROPERTY
@given(st.one_of(st.none(), st.text(max_size=3), st.integers(-2, 2)), st.integers(0, 3))
def test_pandas_names_attrs_and_index_are_part_of_the_release(name, attr):
    base = pd.Series([1.0, 2.0], name="n")
    named = pd.Series([1.0, 2.0], name=name)
    assert _alike(base, named) == (name == "n" and type(name) is str)
    frame, other = pd.DataFrame({"a": [1.0, 2.0]}), pd.DataFrame({"a": [1.0, 2.0]})
    other.attrs["x"] = attr
    assert not _alike(frame, other)
    assert not _alike(base, pd.Series([1.0, 2.0], name="n", index=[1, 0]))
    assert not _alike(pd.DataFrame({"a": [1], "b": [2]}), pd.DataFrame({"b": [2], "a": [1]}))
    assert not _alike(pd.Series([2**60, 1], dtype="Int64"), pd.Series([2**60 + 1, 1], dtype="Int64"))
    assert _alike(pd.DataFrame({"a": [1, 2], "b": [0.5, -0.0]}), pd.DataFrame({"a": [1, 2], "b": [0.5, -0.0]}))


def test_containers_of_every_kind_encode_alike_iff_equal():
    point = collections.namedtuple("point", "x y")
    values = [
        point(1.0, 2.0), (1.0, 2.0), [1.0, 2.0], collections.OrderedDict(x=1.0, y=2.0), {"x": 1.0, "y": 2.0},
        collections.Counter(x=1, y=2), {"x": 1, "y": 2}, np.array([1.0, 2.0], dtype=object), None, "x", b"x",
        np.array(["x"]), pd.Timestamp("2024-01-01"), np.datetime64("2024-01-01"), pd.Index([1.0, 2.0]),
    ]  # fmt: skip
    keys = [encode(v).key() for v in values]
    assert len(set(keys)) == len(values)
    assert [encode(v).key() for v in values] == keys  # the same release encodes alike every time


@pytest.mark.parametrize(
    ("release", "named"),
    [
        ((i for i in range(3)), "a generator"),
        ({1.0, 2.0}, "a set"),
        (iter([1.0]), "an iterator"),
        (len, "a function"),
        (object(), "an object of type builtins.object"),
        ([map(float, "1")], "holding an iterator"),
        (np.ma.array([1.0]), "an ndarray subclass"),
    ],  # fmt: skip
)
def test_what_cannot_be_encoded_exactly_is_one_line_naming_it(release, named):
    with pytest.raises(UnencodableRelease) as raised:
        encode(release)
    message = str(raised.value)
    assert isinstance(raised.value, InputError) and named in message and "\n" not in message
    assert message.startswith("the program returned")
