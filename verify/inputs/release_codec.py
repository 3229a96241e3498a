"""A release encoded losslessly: what a user's program (or sampler) returned, as a structure and a float64 view.

:func:`encode` splits a release into two parts:

* ``structure`` -- a hashable tuple of plain values (str, bytes, small ints, bool, None and tuples of them; an exact
  integer of any size as its ``hex``, whose ``repr`` has no digit limit): one node per
  container or leaf, in the release's own order.  A leaf's node holds its exact Python or numpy type and, for
  arrays, its dtype, shape and layout; a container's node its type and length (a dict's keys in their order, a
  namedtuple's class); a string or bytes value itself; a pandas object's name, index, columns, dtypes, attrs and
  flags.  Every label (a dict key, an index, a name, the attrs) is itself encoded, as its structure and the bytes of
  its numbers.  A container, array, pandas object or tensor met a second time is a back-reference, ``("ref", n)``:
  the n-th such object first met (pickle's memo), so a release that contains itself is finite and sharing is read
  (``[a, a]`` is not ``[a, a.copy()]``).  Last, a numeric leaf's **residue**: what its float64 view cannot hold --
  the exact value of each integer beyond 2^53 (an int64, a uint64 or a Python int of any size), the exact rational
  of each extended-precision value (``np.longdouble``, its complex) that float64 rounds, the bits of each NaN of a
  float16 or float32 (widening quiets a signalling NaN) and of an extended-precision NaN.
* ``numbers`` -- the float64 view, one coordinate per real number in the release's order: a complex number gives
  its real and imaginary parts, a bool and an integer their value, a float16 or float32 its value widened (exact),
  a float64 its own bits (sign of zero and NaN payload included), an extended-precision value its rounding.

**A closed world.**  A type is accepted only where every part of it that a reader, a comparison, a pickle or a file
written from it can show is read -- derived from how the type is defined and pickled (its ``__reduce__``, its
attributes, its flags), not from examples -- and every other object is refused with :class:`UnencodableRelease`,
one line naming it (exit 2): what is not read completely is never compared partially.  What each accepted type is
read as: exact ``None``/bool/int/float/complex/str/bytes (a subclass may carry a ``__dict__``: refused);
``tuple``/``list`` (their items); ``dict``, ``OrderedDict``, ``Counter`` (keys in order, values; refused where the
instance holds attributes), ``defaultdict`` (also its factory, a builtin type read by name); a namedtuple (its items
and its class: :mod:`release_namedtuples`); numpy arrays and scalars (:mod:`release_arrays`: dtype, shape, strides,
``writeable``, values, a view's offset and base); pandas objects and torch tensors (:mod:`release_frames`,
:mod:`release_tensors`).  A release nested more than :data:`MAX_DEPTH` deep is refused in one line.

**Exact for** the releases :func:`encode` accepts.  The decoding argument: walking ``structure`` names each node's
type, dtype, shape, layout, length, keys, back-references and strings in order, so it says how many coordinates of
``numbers`` each numeric leaf takes and how to read them; a float64 coordinate is its value's bits; an integer, bool
or float16/float32 value is its exact float64 image (injective on them), except where the residue gives it (beyond
2^53, a float16/32 NaN's bits); an extended-precision value is its float64 rounding except where the residue gives
its exact rational or bits.  So the release is a function of the two parts, and two releases whose parts are equal
are equal -- as objects of the same types holding the same bits, keys in the same order, shared where shared.
:func:`same` therefore compares ``structure`` by ``==`` and ``numbers`` by their bits (``view(uint64)``): ``0.0`` and
``-0.0`` differ, two NaNs of different payloads differ, ``1`` and ``1.0`` and ``True`` differ (their types),
``{"a": 1, "b": 2}`` and ``{"b": 2, "a": 1}`` differ (their order).

**Not read:** the identity of an immutable scalar (a number, a string, bytes, a numpy or pandas scalar): Python
promises nothing about it -- interning, the small-int cache and constant folding share or copy equal values as the
interpreter chooses, so reading it would set apart runs that differ in no choice of the program's (pickle's memo
shows whether two equal strings are one object: a bit a program could hide there is not read); a class's own
attributes (a namedtuple's class, a ``defaultdict``'s factory, an annotation are read by name, as pickle reads a
class: a class is the program's code); padding bytes of a longdouble; the private state of pandas and torch,
reachable only through their private API (pandas' block layout, caches and masked arrays' buffers, autograd hooks):
:mod:`release_frames`, :mod:`release_tensors`.
"""

from __future__ import annotations

import collections
import dataclasses
import types
from typing import Any, NoReturn

import numpy as np

from pdp_audit.verify.inputs import (
    release_arrays,
    release_buffers,
    release_frames,
    release_namedtuples,
    release_tensors,
)
from pdp_audit.verify.inputs.validation import InputError

#: What a refused release may be instead.
ACCEPTED = "return numbers, arrays, pandas objects, or tuples/lists/dicts of them"
#: The deepest a release is read: a release nested deeper is refused in one line (the walk recurses per level).
MAX_DEPTH = 100
#: What a ``defaultdict``'s ``default_factory`` may be: None or one of these builtin types, read by name.
FACTORIES = {factory: factory.__name__ for factory in (int, float, complex, bool, str, bytes, list, dict, tuple)}


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
    if kind is np.ndarray and release.dtype is release_arrays.FLOAT64 and release.base is None:
        head = ("ndarray", release_arrays.layout(release, None), "d", "<f8", release.shape, None)
        return (head,), release.astype(np.float64).ravel()  # a copy of its own, C-ordered
    walk = Walk(source)
    walk.value(release)
    return tuple(walk.structure), walk.numbers()


def label(value: Any, source: str = "the program") -> tuple:
    """A label (a dict key, a name, an index, attrs) as a plain hashable tuple, exactly: its encoding's structure
    and its numbers' bytes."""
    return Walk(source).label(value)


_FLOAT = (("float",),)
_FLOAT64 = (("numpy", "float64", None, "d", "<f8", (), None),)
_SCALARS = {bool: "bool", float: "float", complex: "complex"}
_DICTS: dict[type, str] = {dict: "dict", collections.OrderedDict: "OrderedDict", collections.Counter: "Counter"}


class _Memo:
    """What one encoding shares across its labels: the objects met (by ``id``, kept alive so that no id is reused
    while the walk runs) and the depth the walk is at."""

    def __init__(self) -> None:
        self.seen: dict[int, int] = {}
        self.kept: list = []
        self.buffers = release_buffers.Buffers()
        self.depth = 0


class Walk:
    """One encoding: the structure's nodes and the numbers' pieces, appended in the release's order (the readers of
    numpy, pandas and torch objects append through :meth:`node`, :meth:`array`, :meth:`value` and :meth:`label`)."""

    def __init__(self, source: str, memo: _Memo | None = None):
        self.source = source
        self.memo = memo or _Memo()
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

    def node(self, node: tuple) -> None:
        """Append a structure node."""
        self.structure.append(node)

    def array(self, numbers: np.ndarray) -> None:
        """Append float64 numbers."""
        self._flush()
        self.pieces.append(numbers)

    def label(self, value: Any) -> tuple:
        """``value`` as a plain hashable tuple (its structure and its numbers' bytes), read in this walk's memo and
        depth: an object met before is a back-reference, and a label's depth counts."""
        if type(value) is str:  # most keys and names: what the walk gives, without the walk
            return ((("str", value),), b"")
        inner = Walk(self.source, self.memo)
        inner.value(value)
        return (tuple(inner.structure), inner.numbers().tobytes())

    def buffer(self, start: int, size: int) -> int | None:
        """The ordinal of the buffer met before that is exactly ``size`` bytes at ``start``, else None (it is
        remembered); refused where it overlaps one partly (:mod:`release_buffers`)."""
        try:
            return self.memo.buffers.share(start, size)
        except release_buffers.SharedPart as part:
            self.refuse(f"an array or tensor that {part}", "return copies of them (np.array(x), x.clone())")

    def refuse(self, what: str, fix: str = ACCEPTED) -> NoReturn:
        """Refuse the release in one line naming ``what`` it holds and how to return it instead."""
        holding = "" if self.memo.depth <= 1 else "a release holding "
        raise UnencodableRelease(f"{self.source} returned {holding}{what}, which cannot be compared exactly: {fix}")

    def value(self, x: Any) -> None:
        """Encode ``x``: a scalar as it is; any other object a back-reference where it was met before, else its node
        and parts in turn, one level deeper."""
        kind = type(x)
        if self._scalar(x, kind):
            return
        memo = self.memo
        memo.depth += 1
        try:
            if memo.depth > MAX_DEPTH:
                self.refuse(f"objects nested more than {MAX_DEPTH} deep", "return a flatter release")
            if isinstance(x, np.generic):  # an immutable scalar: its identity is not read (module notes)
                release_arrays.read_scalar(self, x)
            elif not release_frames.read_scalar(self, x) and not self._seen(x):
                self._object(x, kind)
        finally:
            memo.depth -= 1

    def _seen(self, x: Any) -> bool:
        """Whether ``x`` was met before in this encoding (its back-reference appended); else it is remembered."""
        memo = self.memo
        at = memo.seen.get(id(x))
        if at is not None:
            self.structure.append(("ref", at))
            return True
        memo.seen[id(x)] = len(memo.kept)
        memo.kept.append(x)
        return False

    def _object(self, x: Any, kind: type) -> None:
        if self._container(x, kind):
            return
        if kind is np.ndarray:
            release_arrays.read_array(self, x)
        elif not release_frames.read(self, x) and not release_tensors.read(self, x):
            self.refuse(_named(x))

    def _scalar(self, x: Any, kind: type) -> bool:
        """Whether ``x`` is a Python scalar of an exact type (None, a number, a string or bytes), encoded."""
        if kind is float or kind is bool:
            self.structure.append((_SCALARS[kind],))
            self.scalars.append(float(x))
        elif kind is int:
            self.structure.append(("int", hex(x) if abs(x) > release_arrays.EXACT_INTEGERS else None))
            self.scalars.append(release_arrays.float_of_int(x))
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
        elif kind in _DICTS or kind is collections.defaultdict:
            node = self._dict_node(x, kind)
        elif isinstance(x, tuple) and hasattr(kind, "_fields"):
            node = ("namedtuple", release_namedtuples.class_label(self, kind), getattr(kind, "_fields"), len(x))
        else:
            return False
        self.structure.append(node)
        for item in x.values() if isinstance(x, dict) else x:
            self.value(item)
        return True

    def _dict_node(self, x: Any, kind: type) -> tuple:
        """A dict's node: its type (a ``defaultdict``'s factory), then its keys in order (their labels)."""
        name = _DICTS.get(kind, "defaultdict")
        attributes = getattr(x, "__dict__", None)  # an OrderedDict's or a Counter's: a reader sees them
        if attributes:
            self.refuse(f"a {name} with attributes {sorted(map(str, attributes))}", "return a plain dict of it")
        if kind is collections.defaultdict:
            factory = x.default_factory
            if factory is not None and FACTORIES.get(factory) is None:
                self.refuse(f"a defaultdict whose default_factory is {factory!r}", "return dict(x)")
            return (name, None if factory is None else FACTORIES[factory], tuple(self.label(k) for k in x))
        return (name, tuple(self.label(k) for k in x))


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
