"""A numpy array or scalar in a release, read completely (the release codec's reader of numpy's objects).

**What an ndarray is.**  An ``np.ndarray`` (the exact class; a subclass may carry state of its own) is a dtype, a
shape, strides, a ``writeable`` flag and a buffer; it either owns its buffer (``base is None``) or shows part of the
buffer of another object, its ``base``, which a reader reaches as ``array.base`` (``big[:1].base`` is all of
``big``).  Its C/F contiguity, ``owndata`` and ``aligned`` flags are functions of these (numpy aligns every buffer it
allocates, so alignment follows from the offset into its base); pickle and ``np.save`` write the dtype, the shape,
the values and whether the order is Fortran's -- all functions of the parts below.  So an array is read as:

* its **dtype**, where :func:`dtype_refusal` accepts it: a builtin dtype of kind bool, integer, unsigned, float,
  complex, datetime, timedelta, str, bytes or object, with no ``metadata`` (``np.dtype(float, metadata=...)`` compares
  equal to ``float`` but carries a dict a reader sees), no fields (a structured or void dtype: its names, titles,
  offsets and padding), no subarray, of the class ``np.dtype(dtype.str)`` gives back.  Such a dtype is a function of
  its ``str`` (byte order, kind, size, datetime unit) and its ``char`` (``'l'`` and ``'q'`` are two numpy types of one
  size): both are read.  Any other dtype (a user-defined or ``StringDType``) is refused in one line.
* its **shape**, **strides** and ``writeable`` flag;
* an array that owns its buffer: its **values** (:mod:`release_codec`'s exact float64 view and residue, or for an
  object array its items, each encoded in turn), and which buffer met before it is, if any (``torch.from_numpy``
  shares it without a ``base``: :mod:`release_buffers`);
* a view: its **offset** into its base (``__array_interface__``'s data addresses, public) and its **base**, encoded in
  turn (a back-reference where it was read before).  The view's values are a function of the base's bytes, the
  offset, the strides, the shape and the dtype, so they are not read twice.  A base that is neither an exact
  ``np.ndarray`` nor a torch tensor (``tensor.numpy()``'s base, read by :mod:`release_tensors`, the offset from its
  ``data_ptr()``) -- a ``bytes`` under ``np.frombuffer``, an ``mmap``, as_strided's holder -- is refused: return a copy
  (``np.array(x)``).

A numpy scalar is read as the 0-d array of its value, of the exact class ``dtype.type`` only: a subclass of
``np.float64`` (also a ``float``) may carry a ``__dict__``, and a ``np.void`` is a structured record.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from pdp_audit.verify.inputs.release_walk import Encoder

#: The largest magnitude below which every integer is a float64 exactly (2^53; every integer of |n| ≤ 2^53 is).
EXACT_INTEGERS = 2**53
#: The dtype kinds read: bool, integer, unsigned, float, complex, datetime, timedelta, str, bytes, object.
READ_KINDS = "biufcmMUSO"
#: float64, numpy's own instance (an array of a float64 dtype with metadata holds another instance).
FLOAT64 = np.dtype(np.float64)


def dtype_refusal(dtype: np.dtype) -> str | None:
    """Why ``dtype`` is not read (module notes), as the words a refusal names it with; None where it is read."""
    if dtype.metadata is not None:
        return f"a dtype with metadata ({dtype.str}, metadata keys {sorted(map(str, dtype.metadata))})"
    if dtype.fields is not None or dtype.subdtype is not None:
        return f"a structured or subarray dtype ({dtype})"
    if dtype.kind not in READ_KINDS:
        return f"a dtype of kind {dtype.kind!r} ({dtype!r})"
    plain = np.dtype(dtype.str)
    if type(plain) is not type(dtype) or plain != dtype:
        return f"a non-builtin dtype ({dtype!r})"
    return None


def layout(a: np.ndarray, offset: int | tuple | None) -> tuple:
    """An array's layout as the structure holds it: its strides, ``writeable`` flag and offset into its base (None:
    it owns its buffer; ``("shares", k)``: it owns the buffer the k-th one met owns, :mod:`release_buffers`)."""
    return (a.strides, bool(a.flags.writeable), offset)


def read_array(walk: Encoder, a: np.ndarray) -> None:
    """An exact ``np.ndarray`` (module notes): its node, then its values or its base."""
    refusal = dtype_refusal(a.dtype)
    if refusal is not None:
        walk.refuse(f"an array of {refusal}", "return an array of a plain numeric dtype (np.asarray(x, float))")
    base: Any = a.base
    if base is None:
        shared = walk.buffer(a.__array_interface__["data"][0], a.nbytes)
        read_values(walk, a, ("ndarray", layout(a, None if shared is None else ("shares", shared))))
    elif type(base) is np.ndarray or _is_tensor(base):
        start = base.data_ptr() if _is_tensor(base) else base.__array_interface__["data"][0]
        offset = a.__array_interface__["data"][0] - start
        dtype = a.dtype
        walk.node(("ndarray", layout(a, offset), dtype.char, dtype.str, a.shape, None))
        walk.value(base)
    else:
        walk.refuse(
            f"an array that shows the buffer of a {type(base).__module__}.{type(base).__qualname__} (its base)",
            "return a copy of it (np.array(x))",
        )


def _is_tensor(base: object) -> bool:
    """Whether ``base`` is a torch tensor (``tensor.numpy()``'s base; torch is in ``sys.modules`` wherever one is)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(base, torch.Tensor)


def read_scalar(walk: Encoder, x: np.generic) -> None:
    """A numpy scalar of its dtype's exact class, as the 0-d array of its value (module notes)."""
    dtype = x.dtype
    if type(x) is not dtype.type or dtype_refusal(dtype) is not None:
        kind = type(x)
        walk.refuse(
            f"a numpy scalar of type {kind.__module__}.{kind.__qualname__} ({dtype_refusal(dtype) or 'a subclass'})",
            "return a plain numpy scalar or a Python number",
        )
    read_values(walk, np.asarray(x), ("numpy", type(x).__name__, None))


def read_values(walk: Encoder, a: np.ndarray, head: tuple) -> None:
    """An array's node (``head``, then its dtype's char and str, its shape and its residue) and its values: a
    float64 view and residue (:mod:`release_codec`), an object array's items encoded in turn, strings in the node."""
    dtype, kind = a.dtype, a.dtype.kind
    head = (*head, dtype.char, dtype.str, a.shape)
    if kind == "f" and dtype.itemsize == 8:  # float64 (most arrays): its bits are its view
        walk.node((*head, None))
        walk.array(a.astype(np.float64).ravel())
    elif kind == "O":
        walk.node((*head, None))
        for item in a.ravel().tolist():
            walk.value(item)
    elif kind in "US":
        walk.node((*head, tuple(a.ravel().tolist())))
    elif kind in "Mm":
        flat = a.view(np.int64).ravel()
        walk.node((*head, big_integers(flat)))
        walk.array(flat.astype(np.float64))
    elif kind in "biu":
        flat = a.ravel()
        walk.node((*head, big_integers(flat) if dtype.itemsize >= 8 and kind != "b" else None))
        walk.array(flat.astype(np.float64))
    else:  # "f" or "c": a complex number's parts, interleaved, as reals of the part's dtype
        flat = a.ravel()
        if kind == "c":
            parts = np.empty(flat.size * 2, dtype=np.dtype(f"f{dtype.itemsize // 2}"))
            parts[0::2], parts[1::2] = flat.real, flat.imag
            flat = parts
        # a signalling NaN widened, a longdouble beyond float64: what the view misses is in the residue
        with np.errstate(invalid="ignore", over="ignore"):
            numbers = flat.astype(np.float64)
        walk.node((*head, float_residue(flat, numbers)))
        walk.array(numbers)


def float_of_int(x: int) -> float:
    """A Python int's float64 view: itself where float64 holds it, else its rounding, or beyond float64's range the
    signed infinity (its residue is the integer)."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def big_integers(flat: np.ndarray) -> tuple | None:
    """The (flat index, exact value) of each integer of magnitude beyond 2^53 (float64 rounds it), or None."""
    big = flat > EXACT_INTEGERS
    if flat.dtype.kind != "u":
        big |= flat < -EXACT_INTEGERS
    if not big.any():
        return None
    where = np.flatnonzero(big)
    return tuple(zip(where.tolist(), map(hex, flat[where].tolist())))


def float_residue(flat: np.ndarray, numbers: np.ndarray) -> tuple | None:
    """What the float64 view of a float array misses, or None: a float16/32 NaN's bits; an extended value's exact
    rational where float64 rounds it, its bytes where it is a NaN."""
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
