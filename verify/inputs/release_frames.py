"""A pandas object in a release, read completely (the release codec's reader of pandas' objects).

pandas is in ``sys.modules`` wherever a release holds one of its objects, so it is never imported here.  What is read,
by class (the exact classes only: a subclass may declare ``_metadata`` of its own, and is refused):

* ``Series``: its name, index, dtype, ``attrs``, ``flags`` (``allows_duplicate_labels``, its one flag) and values;
  ``DataFrame``: its index, columns, dtypes, ``attrs``, ``flags`` and each column's values.  A numpy-dtype column's
  values are read as ``to_numpy()`` gives them -- a view whose ``base`` (public) is pandas' array, which may be a
  block of several columns (``df["a"].to_numpy().base`` shows ``df["b"]``) -- so, by :mod:`release_arrays`, the whole
  base, once (the other columns of the block are back-references).
* An Index: its class, names and, by class: ``RangeIndex`` its start, stop and step; ``MultiIndex`` its levels (unused
  values included), codes and ``sortorder``; ``PeriodIndex`` its dtype (its frequency) and ordinals; ``IntervalIndex``
  its dtype (its closed side) and left and right ends; ``Index``, ``CategoricalIndex``, ``DatetimeIndex`` and
  ``TimedeltaIndex`` their dtype and values, and the last two their ``freq``, read by its string where the string
  gives it back (a custom business day's holidays are not in its string: refused).
* A dtype: a numpy dtype as :mod:`release_arrays` accepts it; the nullable integer, float and boolean dtypes (one
  dtype a class); ``StringDtype`` its storage and missing value; ``CategoricalDtype`` its categories (unused ones
  included) and order, its values read as their codes; ``DatetimeTZDtype`` its unit and time zone (a
  ``datetime.timezone`` by its ``repr`` -- offset and name --, a ``zoneinfo.ZoneInfo`` by its key).  Another
  extension dtype's values are read as ``to_numpy(dtype=object)`` gives them (exact Python values and ``pd.NA``); a
  nullable array with a missing value is refused (pickle writes the value its private buffer keeps under it).
  Sparse, interval, period, Arrow and other dtypes are refused.
* ``pd.NA``, ``pd.NaT``; a ``Timestamp`` its ticks, unit, time zone and ``fold``; a ``Timedelta`` its ticks and unit.

An object with an instance attribute that a fresh one of its class does not have (``s.secret = x``) is refused.
**Not read:** pandas' private state, reachable only through its private API: the block layout of a DataFrame (which
pickle writes: how the frame was built, not what it holds), the buffers of an extension array (a masked array's
``_data`` may be a view of a larger array), and pandas' caches (``_cache``, ``_item_cache``: functions of the values).
"""

from __future__ import annotations

import datetime
import functools
import sys
from typing import Any

import numpy as np

from pdp_audit.verify.inputs.release_arrays import dtype_refusal
from pdp_audit.verify.inputs.release_walk import Encoder

#: pandas' own caches and flags, set on an object as it is used (an Index's levels, a frame's columns in pandas 1.5 to
#: 2.x): not read (module notes).
CACHES = frozenset({"_cache", "_item_cache", "_is_copy", "_cacher", "_no_setting_name"})
#: The Index classes read (module notes).
INDEXES = ("Index", "RangeIndex", "MultiIndex", "DatetimeIndex", "TimedeltaIndex", "CategoricalIndex", "PeriodIndex",
           "IntervalIndex")  # fmt: skip
#: The nullable dtypes read by their class (one dtype a class).
MASKED = ("Int8Dtype", "Int16Dtype", "Int32Dtype", "Int64Dtype", "UInt8Dtype", "UInt16Dtype", "UInt32Dtype",
          "UInt64Dtype", "Float32Dtype", "Float64Dtype", "BooleanDtype")  # fmt: skip


def read_scalar(walk: Encoder, x: Any) -> bool:
    """Whether ``x`` is ``pd.NA``, ``pd.NaT``, a ``Timestamp`` or a ``Timedelta``, encoded (module notes)."""
    pd = sys.modules.get("pandas")
    if pd is None:
        return False
    kind = type(x)
    if x is pd.NA or x is pd.NaT:
        walk.node((repr(x),))
    elif kind is pd.Timestamp or kind is pd.Timedelta:
        _own_attributes(walk, x)
        ticks = int(x.asm8.view(np.int64))
        tz, fold = (tz_label(walk, x.tz), x.fold) if kind is pd.Timestamp else (None, None)
        walk.node((kind.__name__, ticks, getattr(x, "unit", "ns"), tz, fold))  # pandas 1.5: nanoseconds only
    else:
        return False
    return True


def read(walk: Encoder, x: object) -> bool:
    """Whether ``x`` is a pandas Series, DataFrame or Index, encoded (module notes); a subclass is refused."""
    pd = sys.modules.get("pandas")
    if pd is None or not isinstance(x, (pd.DataFrame, pd.Series, pd.Index)):
        return False
    kind = type(x)
    if kind is pd.Series:
        _own_attributes(walk, x)
        walk.node(("Series", walk.label(x.name), walk.label(x.index), dtype_label(walk, x.dtype), walk.label(x.attrs),
                   x.flags.allows_duplicate_labels))  # fmt: skip
        walk.value(values(walk, x))
    elif kind is pd.DataFrame:
        _own_attributes(walk, x)
        columns = [column for _, column in x.items()]  # by position (a name may repeat), as Series of pandas' arrays
        dtypes = tuple(dtype_label(walk, column.dtype) for column in columns)
        walk.node(("DataFrame", walk.label(x.index), walk.label(x.columns), dtypes, walk.label(x.attrs),
                   x.flags.allows_duplicate_labels))  # fmt: skip
        for column in columns:
            walk.value(values(walk, column))
    elif kind.__name__ in INDEXES and kind is getattr(pd, kind.__name__):
        walk.node(("Index", *_index_parts(walk, x)))
    else:
        walk.refuse(f"a subclass of a pandas object ({kind.__module__}.{kind.__qualname__})")
    return True


def values(walk: Encoder, x: Any) -> np.ndarray:
    """A pandas Series' or Index's values, exactly: its numpy array (a view of pandas' own, module notes), or for an
    extension dtype its values as Python objects (``to_numpy`` would turn an ``Int64`` into rounded floats), for a
    categorical its codes (``Categorical.codes``, public: a view of its own, read with its base).  A
    nullable array with a missing value is refused: the value under it stays in pandas' private buffer, which pickle
    writes (``s[0] = pd.NA`` keeps what was there)."""
    if isinstance(x.dtype, np.dtype):
        return x.to_numpy()
    if type(x.dtype) is sys.modules["pandas"].CategoricalDtype:  # its codes: its categories are in its dtype
        return x.array.codes
    if type(x.dtype).__name__ in MASKED and x.isna().any():
        walk.refuse(
            f"a pandas object of dtype {x.dtype} with missing values (the value under each stays in a private "
            "buffer that pickle writes)",
            "fill them (x.fillna(0)) or return x.astype(object)",
        )
    return x.to_numpy(dtype=object)


def _index_parts(walk: Encoder, index: Any) -> tuple:
    """An Index's class, names and, by class, what defines it (module notes)."""
    pd = sys.modules["pandas"]
    _own_attributes(walk, index)
    kind = type(index)
    names = walk.label(list(index.names))
    if kind is pd.RangeIndex:
        return (kind.__name__, names, index.start, index.stop, index.step)
    if kind is pd.MultiIndex:
        levels = tuple(walk.label(level) for level in index.levels)
        return (kind.__name__, names, levels, tuple(walk.label(c) for c in index.codes), index.sortorder)
    if kind is pd.PeriodIndex:
        return (kind.__name__, names, str(index.dtype), walk.label(index.asi8))
    if kind is pd.IntervalIndex:
        return (kind.__name__, names, str(index.dtype), walk.label(index.left), walk.label(index.right))
    freq = _freq_label(walk, index) if kind in (pd.DatetimeIndex, pd.TimedeltaIndex) else None
    return (kind.__name__, names, dtype_label(walk, index.dtype), walk.label(values(walk, index)), freq)


def _freq_label(walk: Encoder, index: Any) -> str | None:
    """A DatetimeIndex's or TimedeltaIndex's ``freq`` by its string, where the string gives it back."""
    freq = index.freq
    if freq is None:
        return None
    try:
        again = sys.modules["pandas"].tseries.frequencies.to_offset(freq.freqstr)
    except (TypeError, ValueError):  # a string it does not parse back
        again = None
    if type(again) is not type(freq) or again != freq:
        walk.refuse(f"a {type(index).__name__} whose freq {freq!r} is not given back by its string",
                    "return it without that freq")  # fmt: skip
    return str(freq.freqstr)


def dtype_label(walk: Encoder, dtype: Any) -> tuple:
    """A numpy or pandas dtype, exactly (module notes), or refused."""
    if isinstance(dtype, np.dtype):
        refusal = dtype_refusal(dtype)
        if refusal is not None:
            walk.refuse(f"a pandas object of {refusal}", "return it as a plain numeric dtype (astype(float))")
        return (dtype.char, dtype.str)
    pd = sys.modules["pandas"]
    kind = type(dtype)
    if kind is pd.CategoricalDtype:
        return ("category", walk.label(dtype.categories), dtype.ordered)
    if kind is pd.DatetimeTZDtype:
        return ("datetimetz", getattr(dtype, "unit", "ns"), tz_label(walk, dtype.tz))
    if kind is pd.StringDtype:
        return ("string", dtype.storage, walk.label(dtype.na_value))
    if kind.__name__ in MASKED and kind is getattr(pd, kind.__name__):
        return (kind.__name__,)
    walk.refuse(
        f"a pandas object of dtype {dtype} ({kind.__name__})",
        "convert it (astype(float), astype(object)), or use a numpy, nullable, string, category or datetime dtype",
    )


def tz_label(walk: Encoder, tz: Any) -> tuple | None:
    """A time zone, exactly: a ``datetime.timezone`` by its ``repr`` (offset and name), a ``zoneinfo.ZoneInfo`` by
    its key; None for none; any other refused."""
    if tz is None:
        return None
    if type(tz) is datetime.timezone:
        return ("timezone", repr(tz))
    zoneinfo = sys.modules.get("zoneinfo")
    if zoneinfo is not None and type(tz) is zoneinfo.ZoneInfo and tz.key is not None:
        return ("ZoneInfo", tz.key)
    walk.refuse(f"a time zone of type {type(tz).__module__}.{type(tz).__qualname__}", "use tz='UTC' or a zone name")


def _own_attributes(walk: Encoder, x: Any) -> None:
    """Refuse ``x`` where it holds an instance attribute a fresh object of its class does not (module notes)."""
    extra = set(getattr(x, "__dict__", ())) - _fresh_attributes(type(x).__name__) - CACHES
    if extra:
        walk.refuse(
            f"a pandas {type(x).__name__} with attributes {sorted(extra)} of its own",
            "return it without them (put what they hold in x.attrs, which is read)",
        )


@functools.lru_cache(maxsize=None)
def _fresh_attributes(kind: str) -> frozenset:
    """The instance attributes a fresh object of the pandas class named ``kind`` (one the module reads) holds."""
    pd = sys.modules["pandas"]
    fresh = {
        "DataFrame": lambda: pd.DataFrame({"a": [1.0]}), "Series": lambda: pd.Series([1.0]),
        "Index": lambda: pd.Index([1.0]), "RangeIndex": lambda: pd.RangeIndex(2),
        "MultiIndex": lambda: pd.MultiIndex.from_arrays([[1], ["a"]]),
        "DatetimeIndex": lambda: pd.date_range("2024-01-01", periods=2),
        "TimedeltaIndex": lambda: pd.timedelta_range("1D", periods=2),
        "CategoricalIndex": lambda: pd.CategoricalIndex(["a"]),
        "PeriodIndex": lambda: pd.period_range("2024-01", periods=2, freq="M"),
        "IntervalIndex": lambda: pd.interval_range(0, 2),
        "Timestamp": lambda: pd.Timestamp("2024-01-01"), "Timedelta": lambda: pd.Timedelta(1),
    }  # fmt: skip
    return frozenset(getattr(fresh[kind](), "__dict__", ()))
