"""A namedtuple's class, read completely (the release codec's reader of namedtuple classes).

A namedtuple in a release is a tuple whose class a reader reaches as ``type(r)``: its name, module, fields,
docstring, field defaults, methods and any other class attribute.  Pickle writes the instance as its class, by module
and qualified name, and its items.  A class made by ``collections.namedtuple(name, fields, defaults=...)`` holds in
its ``__dict__`` only what that factory generates, each a function of the name, the fields and the defaults: the
fields and their accessors (index and doc), ``__new__`` (its defaults the field defaults), ``_make``, ``_replace``,
``__repr__``, ``_asdict``, ``__getnewargs__``, ``__slots__``, ``__match_args__``, ``_fields``, ``_field_defaults``, a
docstring and a module; ``typing.NamedTuple`` adds ``__annotations__`` and ``__orig_bases__`` (and, from Python
3.13, the class statement's ``__firstlineno__`` and ``__static_attributes__``).

So a class is read as its module, qualified name, name, fields, docstring, defaults (each encoded), annotations (each
by name, as pickle names a class) and those class-statement values, and is accepted only where every other attribute
is the one the factory generates for the same name, fields and number of defaults: the same set of names, each
function of the same code, closure values, globals, name, docstring and no attributes of its own, each accessor of
the same index and doc, with the class's metaclass ``type`` and bases ``(tuple,)``.  A namedtuple class with a method,
a class attribute, a base or a metaclass of its own is refused in one line: what it holds is not read.
"""

from __future__ import annotations

import collections
import functools
import types
import typing

from pdp_audit.verify.inputs.release_walk import Encoder

#: What ``typing.NamedTuple`` adds to the generated class, read by :func:`_typing_parts`.
TYPING_PARTS = frozenset({"__annotations__", "__orig_bases__", "__firstlineno__", "__static_attributes__"})
#: What is read as it is (encoded), not compared with the generated class.
READ = frozenset({"__doc__", "__module__", "_field_defaults"})
#: The factory, called with a name known only at run time.
_FACTORY: typing.Callable[..., type] = collections.namedtuple
#: A generated function's attributes that must be the generated ones.
FUNCTION_PARTS = ("__code__", "__name__", "__qualname__", "__doc__", "__module__", "__kwdefaults__", "__annotations__")


def class_label(walk: Encoder, kind: type) -> tuple:
    """A namedtuple class as the structure holds it (module notes); refused in one line where it holds more."""
    why = _refusal(kind)
    if why is not None:
        walk.refuse(
            f"a namedtuple of class {kind.__module__}.{kind.__qualname__} ({why})",
            "return a tuple or a dict, or a namedtuple whose class is only what collections.namedtuple or "
            "typing.NamedTuple makes",
        )
    namespace = vars(kind)
    typed = tuple((name, _typing_part(walk, name, namespace[name])) for name in sorted(TYPING_PARTS & set(namespace)))
    return (
        kind.__module__, kind.__qualname__, kind.__name__, walk.label(namespace.get("__doc__")),
        walk.label(namespace["_field_defaults"]), typed,
    )  # fmt: skip


def _refusal(kind: type) -> str | None:
    """Why ``kind`` is not read as a namedtuple class (module notes), or None."""
    fields = getattr(kind, "_fields", None)
    if type(kind) is not type or kind.__bases__ != (tuple,):
        return "a metaclass or a base of its own"
    if type(fields) is not tuple or not all(type(f) is str for f in fields):
        return "its _fields are not a tuple of strings"
    namespace = vars(kind)
    defaults = namespace.get("_field_defaults")
    if type(defaults) is not dict or list(defaults) != list(fields[len(fields) - len(defaults) :]):
        return "its _field_defaults are not its last fields'"
    try:
        reference = vars(_generated(kind.__name__, fields, len(defaults)))
    except (TypeError, ValueError):
        return "a name or fields collections.namedtuple does not make"
    names = set(namespace) - TYPING_PARTS
    if names != set(reference):
        return f"attributes {sorted(names ^ set(reference))} beside the generated ones"
    annotations = namespace.get("__annotations__")  # typing.NamedTuple sets it as __new__'s annotations too
    for name in sorted(names - READ):
        if not _as_generated(namespace[name], reference[name], annotations):
            return f"its {name} is not the generated one"
    given = namespace["__new__"].__func__.__defaults__ or ()
    if len(given) != len(defaults) or any(a is not b for a, b in zip(given, defaults.values())):
        return "its __new__'s defaults are not its _field_defaults"
    return None


@functools.lru_cache(maxsize=256)
def _generated(name: str, fields: tuple, defaults: int) -> type:
    """The class ``collections.namedtuple`` makes for ``name``, ``fields`` and that many defaults."""
    made: type = _FACTORY(name, fields, defaults=[None] * defaults, rename=True)
    if getattr(made, "_fields", None) != fields:
        raise ValueError(fields)
    return made


def _as_generated(value: object, reference: object, annotations: object) -> bool:
    """Whether a class attribute is the one the factory generates (``reference``): a function of the same code,
    closure values, globals and names, with no attributes of its own; an accessor of the same index and doc; a plain
    value equal to it."""
    if type(value) is not type(reference):
        return False
    if isinstance(value, (staticmethod, classmethod)):
        return _as_generated(value.__func__, getattr(reference, "__func__", None), annotations)
    if isinstance(value, types.FunctionType) and isinstance(reference, types.FunctionType):
        return _same_function(value, reference, annotations)
    if isinstance(value, (str, tuple)):
        return value == reference
    return value.__reduce__() == reference.__reduce__()  # a field's accessor: its class, index and doc


def _same_function(f: types.FunctionType, g: types.FunctionType, annotations: object) -> bool:
    """Whether ``f`` is the function ``g`` the factory generates (its defaults aside: ``__new__``'s are read; its
    annotations may be the class's, as ``typing.NamedTuple`` sets them)."""
    if vars(f):
        return False
    for part in FUNCTION_PARTS:
        mine = getattr(f, part)
        if mine != getattr(g, part) and not (part == "__annotations__" and mine is annotations):
            return False
    if f.__globals__ is not g.__globals__ and f.__globals__ != g.__globals__:
        return False
    cells = [c.cell_contents for c in f.__closure__ or ()]
    return cells == [c.cell_contents for c in g.__closure__ or ()] and (
        f.__name__ == "__new__" or f.__defaults__ == g.__defaults__
    )


def _typing_part(walk: Encoder, name: str, value: object) -> object:
    """What ``typing.NamedTuple`` added, read: annotations by name, ``__orig_bases__`` as the one it sets, the class
    statement's line and static attributes as their labels."""
    if name == "__orig_bases__" and value == (typing.NamedTuple,):
        return "NamedTuple"
    if name == "__annotations__" and type(value) is dict:
        names = tuple((field, _annotation(a)) for field, a in value.items())
        if all(type(field) is str and named is not None for field, named in names):
            return names
    elif name in ("__firstlineno__", "__static_attributes__") and type(value) in (int, tuple):
        return walk.label(value)
    walk.refuse(f"a namedtuple class whose {name} is {value!r}", "return a tuple or a dict")


def _annotation(annotation: object) -> str | None:
    """An annotation by name (a class as pickle names it, a string, a forward reference, a generic alias of
    these), or None where it is something else (its contents would not be read)."""
    if isinstance(annotation, type):
        return f"{annotation.__module__}.{annotation.__qualname__}"
    if type(annotation) is str:
        return repr(annotation)
    if isinstance(annotation, typing.ForwardRef):
        return f"ForwardRef({annotation.__forward_arg__!r})"
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if (isinstance(origin, type) or origin is typing.Union) and arguments:
        named = [_annotation(a) for a in arguments]
        if None not in named:
            return f"{_annotation(origin) if isinstance(origin, type) else 'Union'}[{', '.join(map(str, named))}]"
    return None
