"""A release encoded losslessly: what a user's program (or sampler) returned, as a structure and a float64 view.

:func:`encode` splits a release into two parts:

* ``structure`` -- a hashable tuple of plain values (str, bytes, small ints, bool, None and tuples of them; an exact
  integer of any size as its ``hex``, whose ``repr`` has no digit limit): one node per
  container or leaf, in the release's own order.  A leaf's node holds its exact Python or numpy type and, for
  arrays, its dtype and shape; a container's node its type and length (a dict's keys in their order, a namedtuple's
  fields); a string or bytes value itself; a pandas object's name, index, columns, dtypes, attrs and flags.  Every
  label (a dict key, an index value, a name, the attrs) is itself encoded by :func:`encode` and held as its
  structure and the bytes of its numbers.  Last, a numeric leaf's **residue**: what its float64 view cannot hold --
  the exact value of each integer beyond 2^53 (an int64, a uint64 or a Python int of any size), the exact rational
  of each extended-precision value (``np.longdouble``, its complex) that float64 rounds, the bits of each NaN of a
  float16 or float32 (widening quiets a signalling NaN) and of an extended-precision NaN.
* ``numbers`` -- the float64 view, one coordinate per real number in the release's order: a complex number gives
  its real and imaginary parts, a bool and an integer their value, a float16 or float32 its value widened (exact),
  a float64 its own bits (sign of zero and NaN payload included), an extended-precision value its rounding.

**Exact for.**  The releases :func:`encode` accepts: Python ``None``/bool/int/float/complex/str/bytes, numpy scalars
and arrays of every numeric, bool, string, datetime and timedelta dtype, object arrays of these, pandas Series,
DataFrames, Indexes, ``pd.NA``, ``pd.NaT``, Timestamps and Timedeltas, dense torch tensors of numpy's numeric dtypes
and bfloat16 (its type, dtype, device and ``requires_grad`` in the structure), and tuples, lists, namedtuples and
dicts (``dict``, ``OrderedDict``, ``Counter``) of them.  The decoding argument: walking ``structure`` names each
node's type, dtype, shape, length, keys and strings in order, so it says how many coordinates of ``numbers`` each
numeric leaf takes and how to read them; a float64 coordinate is its value's bits; an integer, bool or
float16/float32 value is its exact float64 image (injective on them), except where the residue gives it (beyond
2^53, a float16/32 NaN's bits); an extended-precision value is its float64 rounding except where the residue gives
its exact rational or bits.  So the release is a function of the two parts, and two releases whose parts are equal
are equal -- as objects of the same types holding the same bits, keys in the same order.  :func:`same` therefore
compares ``structure`` by ``==`` and ``numbers`` by their bits (``view(uint64)``): ``0.0`` and ``-0.0`` differ, two
NaNs of different payloads differ, ``1`` and ``1.0`` and ``True`` differ (their types), ``{"a": 1, "b": 2}`` and
``{"b": 2, "a": 1}`` differ (their order).  Everything else (a generator, an iterator, a function, a set -- whose
order follows the hash seed --, an object of another class, an ndarray subclass) is refused with
:class:`UnencodableRelease`, one line naming it: what cannot be encoded exactly is never compared.

**Not read:** an object's identity (two equal arrays that share memory or not are the same release), padding bytes
of a longdouble, a pandas object's cached or derived state (a frequency inferred from its index), and a tensor's
gradient, strides and storage (its values, dtype, shape and device are read).
"""

from __future__ import annotations

import collections
import dataclasses
import math
import sys
import types
from typing import Any

import numpy as np

from pdp_audit.verify.inputs.validation import InputError

#: The largest magnitude below which every integer is a float64 exactly (2^53; every integer of |n| ≤ 2^53 is).
EXACT_INTEGERS = 2**53
#: What a refused release may be instead.
ACCEPTED = "return numbers, arrays, pandas objects, or tuples/lists/dicts of them"


class UnencodableRelease(InputError):
    """A release the codec cannot encode exactly (module notes): one line naming what was returned."""


@dataclasses.dataclass(frozen=True, eq=False)
class EncodedRelease:
    """A release encoded losslessly (module notes): its ``structure`` (a hashable tuple of plain values) and its
    ``numbers`` (the float64 view, C-contiguous).  Equal (``==``, :func:`same`) iff the structures are equal and the
    numbers bitwise equal; hashed and keyed by :meth:`key`."""

    structure: tuple
    numbers: np.ndarray

    def key(self) -> bytes:
        """The release as bytes, injective: ``repr(structure)`` (a tuple of plain values, whose ``repr`` is
        injective and holds no NUL byte: ``repr`` escapes it), a NUL, then the numbers' bytes."""
        return repr(self.structure).encode() + b"\0" + self.numbers.tobytes()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EncodedRelease) and same(self, other)

    def __hash__(self) -> int:
        return hash(self.key())


def numbers_of(key: bytes) -> np.ndarray:
    """The numbers of a release from its :meth:`EncodedRelease.key` (what follows the first NUL)."""
    return np.frombuffer(key, dtype=np.float64, offset=key.index(b"\0") + 1)


def same(a: EncodedRelease, b: EncodedRelease) -> bool:
    """Whether two encoded releases are the same release: equal structures and bitwise equal numbers."""
    return a.structure == b.structure and same_bits(a.numbers, b.numbers)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two float64 vectors are bitwise equal (the sign of zero and the NaN payload count)."""
    return a.size == b.size and a.tobytes() == b.tobytes()


def differ(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per coordinate, whether two float64 vectors of one size differ in their bits (``-0.0`` and ``0.0`` differ,
    NaNs of different payloads differ, a NaN and itself do not)."""
    return _as_bits(a) != _as_bits(b)


def _as_bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def bits(x: float) -> int:
    """A Python float's bits as an integer (what :func:`differ` compares, for one number)."""
    return int(np.float64(x).view(np.uint64))


def encode(release: Any, source: str = "the program") -> EncodedRelease:
    """``release`` encoded (module notes); :class:`UnencodableRelease` naming it (``source`` returned it) where it
    holds what cannot be encoded exactly."""
    return EncodedRelease(*parts(release, source))


def parts(release: Any, source: str = "the program") -> tuple[tuple, np.ndarray]:
    """:func:`encode`'s structure and numbers, without the record (a replay of a small program reads many)."""
    kind = type(release)
    if kind is float:  # one number (most releases): what the walk gives it, without the walk
        return _FLOAT, np.array([release], dtype=np.float64)
    if kind is np.float64:
        return _FLOAT64, np.array([release], dtype=np.float64)
    if kind is np.ndarray and release.dtype.kind == "f" and release.dtype.itemsize == 8:
        return (
            (("ndarray", release.dtype.char, release.dtype.str, release.shape, None),),
            release.astype(np.float64).ravel(),  # a copy of its own, C-ordered
        )
    walk = _Walk(source)
    walk.value(release, top=True)
    return tuple(walk.structure), walk.numbers()


def label(value: Any, source: str = "the program") -> tuple:
    """A label (a dict key, a name, an index, attrs) as a plain hashable tuple, exactly: its encoding's structure
    and its numbers' bytes."""
    if type(value) is str:  # most keys and names: what encode gives, without the walk
        return ((("str", value),), b"")
    encoded = encode(value, source)
    return (encoded.structure, encoded.numbers.tobytes())


_FLOAT = (("float",),)
_FLOAT64 = (("numpy", "float64", "d", "<f8", (), None),)
_SCALARS = {bool: "bool", float: "float", complex: "complex"}
_DICTS = {dict: "dict", collections.OrderedDict: "OrderedDict", collections.Counter: "Counter"}


class _Walk:
    """One encoding: the structure's nodes and the numbers' pieces, appended in the release's order."""

    def __init__(self, source: str):
        self.source = source
        self.structure: list = []
        self.pieces: list[np.ndarray] = []
        self.scalars: list[float] = []  # Python numbers not yet moved to ``pieces`` (one array for a run of them)

    def numbers(self) -> np.ndarray:
        self._flush()
        if len(self.pieces) == 1:
            return self.pieces[0]
        return np.concatenate(self.pieces) if self.pieces else np.zeros(0)

    def _flush(self) -> None:
        if self.scalars:
            self.pieces.append(np.array(self.scalars, dtype=np.float64))
            self.scalars = []

    def _array(self, numbers: np.ndarray) -> None:
        self._flush()
        self.pieces.append(numbers)

    def value(self, x: Any, top: bool = False) -> None:
        kind = type(x)
        if self._scalar(x, kind) or self._container(x, kind):
            return
        if kind is np.ndarray:
            self._ndarray(x, ("ndarray",))
        elif isinstance(x, np.generic) and not isinstance(x, np.void):
            self._ndarray(np.asarray(x), ("numpy", kind.__name__))
        elif not self._pandas(x) and not self._torch(x):
            raise UnencodableRelease(
                f"{self.source} returned {'' if top else 'a release holding '}{_named(x)}, which cannot be compared "
                f"exactly: {ACCEPTED}"
            )

    def _scalar(self, x: Any, kind: type) -> bool:
        """Whether ``x`` is a Python scalar (None, a number, a string or bytes), encoded."""
        if kind is float or kind is bool:
            self.structure.append((_SCALARS[kind],))
            self.scalars.append(float(x))
        elif kind is int:
            self.structure.append(("int", hex(x) if abs(x) > EXACT_INTEGERS else None))
            self.scalars.append(_float_of_int(x))
        elif kind is complex:
            self.structure.append(("complex",))
            self.scalars += [x.real, x.imag]
        elif x is None:
            self.structure.append(("None",))
        elif kind is str or kind is bytes:
            self.structure.append((kind.__name__, x))
        else:
            return False
        return True

    def _container(self, x: Any, kind: type) -> bool:
        """Whether ``x`` is a tuple, list, namedtuple or dict, encoded: its node, then its items in order."""
        if kind is tuple or kind is list:
            node: tuple = (kind.__name__, len(x))
        elif kind in _DICTS:
            node = (_DICTS[kind], tuple(label(k, self.source) for k in x))
        elif isinstance(x, tuple) and _namedtuple(x):
            node = ("namedtuple", kind.__module__, kind.__qualname__, getattr(kind, "_fields"), len(x))
        elif kind is collections.defaultdict and x.default_factory in (None, int, float, list, dict):
            factory = None if x.default_factory is None else x.default_factory.__name__
            node = ("defaultdict", factory, tuple(label(k, self.source) for k in x))
        else:
            return False
        self.structure.append(node)
        for item in x.values() if isinstance(x, dict) else x:
            self.value(item)
        return True

    def _ndarray(self, a: np.ndarray, tag: tuple) -> None:
        dtype, kind = a.dtype, a.dtype.kind
        head = (*tag, dtype.char, dtype.str, a.shape)
        if kind == "f" and dtype.itemsize == 8:  # float64 (most arrays): its bits are its view
            self.structure.append((*head, None))
            self._array(a.astype(np.float64).ravel())
        elif kind == "O":
            self.structure.append((*head, None))
            for item in a.ravel().tolist():
                self.value(item)
        elif kind in "US":
            self.structure.append((*head, tuple(a.ravel().tolist())))
        elif kind == "V":
            self.structure.append((*head, str(dtype.descr), a.tobytes()))
        elif kind in "Mm":
            flat = a.view(np.int64).ravel()
            self.structure.append((*head, _big_integers(flat)))
            self._array(flat.astype(np.float64))
        elif kind in "biu":
            flat = a.ravel()
            self.structure.append((*head, _big_integers(flat) if dtype.itemsize >= 8 and kind != "b" else None))
            self._array(flat.astype(np.float64))
        else:  # "f" or "c": a complex number's parts, interleaved, as reals of the part's dtype
            flat = a.ravel()
            if kind == "c":
                parts = np.empty(flat.size * 2, dtype=np.dtype(f"f{dtype.itemsize // 2}"))
                parts[0::2], parts[1::2] = flat.real, flat.imag
                flat = parts
            # a signalling NaN widened, a longdouble beyond float64: what the view misses is in the residue
            with np.errstate(invalid="ignore", over="ignore"):
                numbers = flat.astype(np.float64)
            self.structure.append((*head, _float_residue(flat, numbers)))
            self._array(numbers)

    def _pandas(self, x: Any) -> bool:
        """Whether ``x`` is a pandas object, encoded (pandas is in ``sys.modules`` wherever one exists)."""
        pd = sys.modules.get("pandas")
        if pd is None:
            return False
        source = self.source
        if isinstance(x, pd.DataFrame) and type(x) is pd.DataFrame:
            column_dtypes = list(x.dtypes)  # a Series built per access: read once (a program's every release)
            dtypes = tuple(_dtype_label(d, source) for d in column_dtypes)
            whole = len(set(dtypes)) <= 1 and all(isinstance(d, np.dtype) for d in column_dtypes)
            self.structure.append(
                ("DataFrame", _index_label(x.index, source), _index_label(x.columns, source), dtypes,
                 label(x.attrs, source), x.flags.allows_duplicate_labels, whole)
            )  # fmt: skip
            if whole:  # one numpy dtype: its values exactly, row by row
                self.value(x.to_numpy())
            else:
                for i in range(x.shape[1]):
                    self.value(_values(x.iloc[:, i]))
        elif isinstance(x, pd.Series) and type(x) is pd.Series:
            self.structure.append(
                ("Series", label(x.name, source), _index_label(x.index, source), _dtype_label(x.dtype, source),
                 label(x.attrs, source), x.flags.allows_duplicate_labels)
            )  # fmt: skip
            self.value(_values(x))
        elif isinstance(x, pd.Index):
            self.structure.append(("Index", _index_label(x, source)))
        elif x is pd.NA or x is pd.NaT:
            self.structure.append((repr(x),))
        elif type(x) is pd.Timestamp:
            self.structure.append(("Timestamp", x.value, str(x.tz), x.unit))
        elif type(x) is pd.Timedelta:
            self.structure.append(("Timedelta", x.value, x.unit))
        else:
            return False
        return True


    def _torch(self, x: Any) -> bool:
        """Whether ``x`` is a torch tensor (``torch.Tensor`` or ``torch.nn.Parameter``; torch is in ``sys.modules``
        wherever one exists), encoded: its type, dtype, device and whether it requires a gradient, then its values
        as a numpy array of its dtype -- a bfloat16 widened to float32, which holds its bits (a bfloat16 is a
        float32's upper half, NaN payloads included).  A tensor of another layout, quantized, nested, of a subclass
        or of a dtype numpy has no exact image of (float8, complex32) is refused in one line."""
        torch = sys.modules.get("torch")
        if torch is None or not isinstance(x, torch.Tensor):
            return False
        kind = type(x)
        plain = kind is torch.Tensor or kind is torch.nn.Parameter
        if not plain or x.layout != torch.strided or x.is_quantized or x.is_nested:
            raise UnencodableRelease(
                f"{self.source} returned a {kind.__module__}.{kind.__qualname__} ({x.layout}"
                f"{', quantized' if x.is_quantized else ''}), which cannot be compared exactly: return a dense "
                f"torch.Tensor, or convert it and {ACCEPTED}"
            )
        values = x.detach()
        if values.dtype == torch.bfloat16:
            values = values.float()
        try:
            array = values.numpy(force=True)  # on the CPU, the conjugate and negative bits resolved
        except (TypeError, RuntimeError):
            raise UnencodableRelease(
                f"{self.source} returned a torch tensor of dtype {x.dtype}, which numpy cannot hold exactly: convert "
                f"it (to float32, say), or {ACCEPTED}"
            ) from None
        self._ndarray(array, ("torch", kind.__name__, str(x.dtype), str(x.device), bool(x.requires_grad)))
        return True


def _float_of_int(x: int) -> float:
    try:
        return float(x)
    except OverflowError:  # beyond float64's range: its view is the signed infinity, its residue the integer
        return math.inf if x > 0 else -math.inf


def _big_integers(flat: np.ndarray) -> tuple | None:
    """The (flat index, exact value) of each integer of magnitude beyond 2^53 (float64 rounds it), or None."""
    big = flat > EXACT_INTEGERS
    if flat.dtype.kind != "u":
        big |= flat < -EXACT_INTEGERS
    if not big.any():
        return None
    where = np.flatnonzero(big)
    return tuple(zip(where.tolist(), map(hex, flat[where].tolist())))


def _float_residue(flat: np.ndarray, numbers: np.ndarray) -> tuple | None:
    """What the float64 view of a float array misses (module notes), or None: a float16/32 NaN's bits; an extended
    value's exact rational where float64 rounds it, its bytes where it is a NaN."""
    size = flat.dtype.itemsize
    if size == 8:
        return None
    nan = np.isnan(flat)
    if size < 8:
        if not nan.any():
            return None
        where = np.flatnonzero(nan)
        return tuple(zip(where.tolist(), flat.view(np.dtype(f"u{size}"))[where].tolist()))
    rounded = numbers.astype(flat.dtype) != flat  # a NaN is never equal: its bytes are kept
    if not rounded.any():
        return None
    meaningful = 10 if np.finfo(flat.dtype).nmant == 63 else size  # x86's 80-bit format: the rest is padding
    out = []
    for i in np.flatnonzero(rounded).tolist():
        value = flat[i]
        exact = flat[i : i + 1].tobytes()[:meaningful] if np.isnan(value) else tuple(map(hex, value.as_integer_ratio()))
        out.append((i, exact))
    return tuple(out)


def _dtype_label(dtype: Any, source: str) -> tuple:
    """A numpy or pandas dtype, exactly: a numpy dtype's character and string, an extension dtype's name and, for a
    categorical, its categories and order."""
    if isinstance(dtype, np.dtype):
        return (dtype.char, dtype.str)
    categories = getattr(dtype, "categories", None)
    extra = () if categories is None else (_index_label(categories, source), bool(dtype.ordered))
    return (type(dtype).__name__, str(dtype), *extra)


def _index_label(index: Any, source: str) -> tuple:
    """A pandas Index, exactly: its type, dtype, names and values (a RangeIndex's: its start, stop and step)."""
    if type(index).__name__ == "RangeIndex":
        return ("RangeIndex", index.start, index.stop, index.step, label(list(index.names), source))
    return (
        type(index).__name__,
        _dtype_label(index.dtype, source),
        label(list(index.names), source),
        label(_values(index), source),
    )


def _values(x: Any) -> np.ndarray:
    """A pandas Series' or Index's values, exactly: its numpy array, or for an extension dtype (nullable integers,
    strings, categories) its values as Python objects (``to_numpy`` would turn an ``Int64`` into rounded floats)."""
    return x.to_numpy() if isinstance(x.dtype, np.dtype) else x.to_numpy(dtype=object)


def _namedtuple(x: tuple) -> bool:
    """Whether ``x`` is a namedtuple (its items are its data: it holds no instance attributes)."""
    fields = getattr(type(x), "_fields", None)
    return isinstance(fields, tuple) and all(type(f) is str for f in fields) and not hasattr(x, "__dict__")


def _named(x: Any) -> str:
    """What ``x`` is, as a refusal names it."""
    if isinstance(x, types.GeneratorType):
        return "a generator"
    if isinstance(x, (set, frozenset)):
        return f"a {type(x).__name__} (its order is arbitrary)"
    if isinstance(x, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return "a function"
    if isinstance(x, np.ndarray):
        return f"an ndarray subclass ({type(x).__module__}.{type(x).__qualname__})"
    if hasattr(x, "__next__"):
        return f"an iterator ({type(x).__module__}.{type(x).__qualname__})"
    return f"an object of type {type(x).__module__}.{type(x).__qualname__}"
