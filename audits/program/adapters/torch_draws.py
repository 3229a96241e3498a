"""PyTorch's draws recorded and replayed like numpy's, with no decoration: the noise of Opacus and of a program's own
torch code composed exactly where its law is known.

Once ``torch`` is imported (:meth:`..sources.Sources.wrap_new`), its public draws (:data:`FUNCTIONS`,
:data:`METHODS`) are replaced in torch's namespaces for the session, as numpy's are (:mod:`.sources`): each draws
from the run's generator by the method of the same law (``torch.normal``, ``randn`` and ``Tensor.normal_`` a normal
draw, composed exactly, its noise read as ``output − μ``; the others' outputs recorded and their parameters compared
on replay), handed to the program as a tensor of the dtype and device torch would give.  ``torch.distributions``'
samplers, built on these names, draw through them.

**The draw is torch's law at the dtype torch gives.**  A normal draw is made in float64 and rounded once to the
tensor's dtype (float32 by default): the release is then a rounding of the recorded noise, which the replay's readings
bound as they bound numpy's ``np.float32`` (:mod:`.replay_bounds`); a uniform draw is made at float32 where the
tensor is float32 (numpy's ``random(dtype=float32)``, in [0, 1) as torch's), so that no draw rounds up to 1.

**Seeds** (as :mod:`.sources` reads numpy's): torch's global generator is random; ``torch.manual_seed(c)`` with a
constant fixes it (its draws are then torch's own, not recorded, and noted); ``torch.seed()`` makes it random again;
``set_rng_state`` fixes it; ``get_rng_state`` of a random one is noted as keeping the claim undecided
(``torch.random.fork_rng`` restores it: draws repeated).  A ``torch.Generator`` made in a run is random only once
seeded from entropy or by a seed the audit's generator drew (torch seeds every new one with
:data:`TORCH_DEFAULT_SEED`: fixed).  A generator made before the run is torch's own: undecided.

**Not covered**: draws inside torch's compiled code that no public name reaches (``torch._standard_gamma``, dropout,
``torch.nn.init``'s truncated normal) and CUDA generators' own state: a replay on D that differs from its record
keeps the claim undecided.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np

from pdp_audit.audits.program.adapters.base import Adapter, Hooks
from pdp_audit.audits.program.recorder import FIXED, REPEATED, SAVED

#: torch's module-level draws replaced, each by the maker of :data:`_MAKERS` of the same name.
FUNCTIONS = (
    "normal", "randn", "randn_like", "rand", "rand_like", "randint", "randint_like", "randperm", "bernoulli",
    "poisson", "multinomial",
)  # fmt: skip
#: ``torch.Tensor``'s in-place draws replaced.
METHODS = (
    "normal_", "uniform_", "random_", "bernoulli_", "exponential_", "cauchy_", "log_normal_", "geometric_",
)  # fmt: skip
#: The seed given to every new ``torch.Generator`` (torch's ``default_rng_seed_val``).
TORCH_DEFAULT_SEED = 67280421310721
UNSEEDED = (
    "a torch.Generator never seeded: torch seeds each new one with the same constant, so its noise is fixed (not "
    "recorded; the audit does not count it as noise)"
)
FOREIGN = "a torch.Generator made outside the run: its draws are not recorded (undecided)"


def install(hooks: Hooks) -> None:
    """Replace torch's draws for the session (module notes); ImportError while torch is still being imported."""
    torch = sys.modules["torch"]
    if not hasattr(torch, "Tensor"):
        raise ImportError("torch is still being imported")
    draws = TorchDraws(hooks.sources, torch)
    replace = hooks.replace
    for name in FUNCTIONS:
        if hasattr(torch, name):
            replace(torch, name, draws.function(name))
    for name in METHODS:
        if hasattr(torch.Tensor, name):
            replace(torch.Tensor, name, draws.method(name))
    for owner in (torch, torch.random):
        for name in ("manual_seed", "seed", "get_rng_state", "set_rng_state"):
            replace(owner, name, getattr(draws, name))
    made = _generator_class(torch)
    if made is not None:
        replace(torch, "Generator", made)
    hooks.sources.each_run(lambda: setattr(draws, "fixed", False))


_CLASSES: dict[int, Any] = {}


def _generator_class(torch: Any) -> Any | None:
    """A ``torch.Generator`` subclass (made once per torch module) that knows whether its seed is random: made
    unseeded (fixed: torch's constant), random once ``seed()`` is called or ``manual_seed`` is given a seed the run's
    generator drew (:meth:`.sources.Sources.seed_kind`), fixed again by a constant seed or a saved state.  None for a
    torch whose generator class refuses a subclass: ``torch.Generator`` is then left as it is, and a draw from an
    explicit generator is torch's own, noted as a source not recorded (the claim undecided, never certified)."""
    if id(torch) not in _CLASSES:
        try:
            _CLASSES[id(torch)] = _recorded_generator(torch.Generator)
        except TypeError:
            _CLASSES[id(torch)] = None
    return _CLASSES[id(torch)]


def _recorded_generator(real: Any) -> Any:
    """:func:`_generator_class`'s subclass of torch's generator class ``real``; TypeError where it refuses one."""

    class AnswersAsReal(type(real)):  # type: ignore[misc]
        """``isinstance(g, torch.Generator)`` answers as torch's class would (PEP 3119), for every generator: a
        library's check that its argument is a generator holds for one made before the run too."""

        def __instancecheck__(cls, instance: Any) -> bool:
            return isinstance(instance, real)

        def __subclasscheck__(cls, subclass: type) -> bool:
            return issubclass(subclass, real)

    class RecordedTorchGenerator(real, metaclass=AnswersAsReal):  # type: ignore[misc,valid-type]
        __module__ = "torch"
        random = False
        sources: Any = None

        def manual_seed(self, seed: Any) -> Any:
            sources = RecordedTorchGenerator.sources
            self.random = sources is not None and sources.active and sources.seed_kind(int(seed)) != "fixed"
            return super().manual_seed(seed)

        def seed(self) -> int:
            self.random = True
            return super().seed()

        def set_state(self, state: Any) -> Any:
            self.random = False
            return super().set_state(state)

        def get_state(self) -> Any:
            sources = RecordedTorchGenerator.sources
            if self.random and sources is not None:
                sources.note("torch.Generator.get_state", REPEATED, undecided=True)
            return super().get_state()

    RecordedTorchGenerator.__name__ = RecordedTorchGenerator.__qualname__ = "Generator"
    return RecordedTorchGenerator


class TorchDraws:
    """torch's draws for one session (module notes): each drawn from the run's numpy generator where its source is
    random, else by torch's own function (``original``)."""

    def __init__(self, sources: Any, torch: Any):
        self.sources, self.torch = sources, torch
        #: torch's global generator seeded with a constant in this run
        self.fixed = False
        self.originals = {name: getattr(torch, name) for name in FUNCTIONS if hasattr(torch, name)}
        self.originals.update({name: vars(torch._C.TensorBase)[name] for name in METHODS})
        for name in ("manual_seed", "seed", "get_rng_state", "set_rng_state"):
            self.originals[name] = getattr(torch.random, name)
        made = _generator_class(torch)
        if made is not None:
            made.sources = sources

    # --- where a draw comes from ---------------------------------------------------------------------------------
    def rng(self, generator: Any) -> np.random.Generator | None:
        """The run's generator for a draw from ``generator`` (None: torch's global one), or None where torch's own
        function draws it (outside a run, a fixed seed, a generator made outside the run: noted)."""
        sources = self.sources
        if not sources.active:
            return None
        if generator is None:
            return None if self.fixed else sources.rng()
        made = _generator_class(self.torch)
        if made is not None and type(generator) is made:
            if generator.random:
                return sources.rng()
            sources.note("torch.Generator", UNSEEDED if generator.initial_seed() == TORCH_DEFAULT_SEED else FIXED)
            return None
        sources.note("torch.Generator", FOREIGN, undecided=True)
        return None

    # --- the global generator's seeds ------------------------------------------------------------------------------
    def manual_seed(self, seed: Any) -> Any:
        sources = self.sources
        if sources.active:
            self.fixed = not sources.random_seed("torch.manual_seed", int(seed))
        return self.originals["manual_seed"](seed)

    def seed(self) -> int:
        if self.sources.active:
            self.fixed = False
        return self.originals["seed"]()

    def get_rng_state(self) -> Any:
        sources = self.sources
        if sources.active and not self.fixed:
            sources.note("torch.get_rng_state / torch.random.fork_rng", REPEATED, undecided=True)
        return self.originals["get_rng_state"]()

    def set_rng_state(self, state: Any) -> None:
        sources = self.sources
        if sources.active:
            sources.note("torch.set_rng_state", SAVED)
            self.fixed = True
        self.originals["set_rng_state"](state)

    # --- the draws -----------------------------------------------------------------------------------------------
    def function(self, name: str) -> Callable:
        original, make = self.originals[name], _MAKERS[name]

        def draw(*args: Any, **kwargs: Any) -> Any:
            rng = self.rng(kwargs.get("generator"))
            if rng is None:
                return original(*args, **kwargs)
            return make(self.torch, rng, *args, **kwargs)

        draw.__name__, draw.__doc__ = name, original.__doc__
        return draw

    def method(self, name: str) -> Callable:
        original, make = self.originals[name], _IN_PLACE[name]

        def draw(tensor: Any, *args: Any, **kwargs: Any) -> Any:
            rng = self.rng(kwargs.get("generator"))
            if rng is None:
                return original(tensor, *args, **kwargs)
            kwargs.pop("generator", None)
            values = make(rng, tensor, *args, **kwargs)
            return tensor.copy_(_tensor(self.torch, values, tensor.dtype, tensor.device))

        draw.__name__, draw.__doc__ = name, original.__doc__
        return draw


# --- conversions -------------------------------------------------------------------------------------------------
def _numpy(value: Any) -> Any:
    """A tensor's values as a numpy array (float64 for a floating tensor); anything else as it is."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        array = value.detach().cpu().numpy()
        return array.astype(float) if array.dtype.kind == "f" else array
    return value


def _shape(torch: Any, size: tuple) -> tuple:
    """``randn(2, 3)``, ``randn((2, 3))``, ``randn([2, 3])`` and ``randn(torch.Size([2, 3]))`` as ``(2, 3)``."""
    if len(size) == 1 and isinstance(size[0], (tuple, list, torch.Size)):
        size = tuple(size[0])
    return tuple(int(n) for n in size)


def _tensor(torch: Any, values: Any, dtype: Any, device: Any, requires_grad: bool = False) -> Any:
    made = torch.as_tensor(np.asarray(values), device=device).to(dtype)
    return made.requires_grad_(True) if requires_grad else made


def _floating(torch: Any, dtype: Any, *like: Any) -> Any:
    """The dtype torch gives a floating draw: the one asked, a tensor argument's, else torch's default."""
    if dtype is not None:
        return dtype
    for value in like:
        if hasattr(value, "dtype") and value.dtype.is_floating_point:
            return value.dtype
    return torch.get_default_dtype()


def _unit(rng: np.random.Generator, shape: tuple, dtype: Any, torch: Any) -> np.ndarray:
    """Uniform draws in [0, 1) at the tensor's precision (float32 for every floating dtype but float64: a float64
    draw rounded to float32 can be 1)."""
    exact = np.float64 if dtype == torch.float64 else np.float32
    values = np.asarray(rng.random(shape or None, dtype=exact))
    if dtype not in (torch.float64, torch.float32):  # half precisions: rounded down below 1 where 1 was reached
        below = torch.nextafter(torch.tensor(1.0, dtype=dtype), torch.tensor(0.0, dtype=dtype)).item()
        values = np.minimum(values, below)
    return values


# --- the module's draws: maker(torch, rng, *args, **kwargs) -> tensor ---------------------------------------------
def _normal(torch: Any, rng: np.random.Generator, mean: Any = 0.0, std: Any = 1.0, size: Any = None, **kw: Any) -> Any:
    """``normal(mean, std)`` of tensors or numbers (the shape theirs broadcast), or of numbers and a ``size``."""
    shapes = (np.shape(_numpy(mean)), np.shape(_numpy(std)))
    shape = tuple(size) if size is not None else tuple(np.broadcast_shapes(*shapes))
    dtype = _floating(torch, kw.get("dtype"), mean, std)
    device = kw.get("device") or next((v.device for v in (mean, std) if hasattr(v, "device")), None)
    values = rng.normal(_numpy(mean), _numpy(std), shape)
    return _out(torch, kw, _tensor(torch, values, dtype, device, kw.get("requires_grad", False)))


def _randn(torch: Any, rng: np.random.Generator, *size: Any, **kw: Any) -> Any:
    shape = _shape(torch, size or (kw.get("size", ()),))
    values = rng.normal(0.0, 1.0, shape)
    made = _tensor(torch, values, _floating(torch, kw.get("dtype")), kw.get("device"), kw.get("requires_grad", False))
    return _out(torch, kw, made)


def _rand(torch: Any, rng: np.random.Generator, *size: Any, **kw: Any) -> Any:
    shape = _shape(torch, size or (kw.get("size", ()),))
    dtype = _floating(torch, kw.get("dtype"))
    made = _tensor(torch, _unit(rng, shape, dtype, torch), dtype, kw.get("device"), kw.get("requires_grad", False))
    return _out(torch, kw, made)


def _randint(torch: Any, rng: np.random.Generator, *args: Any, **kw: Any) -> Any:
    """``randint(high, size)`` or ``randint(low, high, size)`` (int64 unless a dtype is asked)."""
    if "size" in kw:
        args = (*args, kw.pop("size"))
    if "high" in kw:
        args = (kw.pop("low", 0), kw.pop("high"), *args)
    low, high, size = (0, *args) if len(args) == 2 else args
    values = rng.integers(int(low), int(high), _shape(torch, (size,)))
    dtype = kw.get("dtype") or torch.int64
    return _out(torch, kw, _tensor(torch, values, dtype, kw.get("device"), kw.get("requires_grad", False)))


def _like(maker: Callable) -> Callable:
    def like(torch: Any, rng: np.random.Generator, tensor: Any, *args: Any, **kw: Any) -> Any:
        kw.setdefault("dtype", tensor.dtype)
        kw.setdefault("device", tensor.device)
        if maker is _randint:
            return maker(torch, rng, *args, tuple(tensor.shape), **kw)
        return maker(torch, rng, tuple(tensor.shape), **kw)

    return like


def _randperm(torch: Any, rng: np.random.Generator, n: int, **kw: Any) -> Any:
    return _out(torch, kw, _tensor(torch, rng.permutation(int(n)), kw.get("dtype") or torch.int64, kw.get("device")))


def _bernoulli(torch: Any, rng: np.random.Generator, probabilities: Any, p: Any = None, **kw: Any) -> Any:
    given = _numpy(probabilities) if p is None else np.full(tuple(probabilities.shape), float(p))
    values = rng.binomial(1, given)
    return _out(torch, kw, _tensor(torch, values, probabilities.dtype, probabilities.device))


def _poisson(torch: Any, rng: np.random.Generator, rates: Any, **kw: Any) -> Any:
    return _out(torch, kw, _tensor(torch, rng.poisson(_numpy(rates)), rates.dtype, rates.device))


def _multinomial(
    torch: Any, rng: np.random.Generator, weights: Any, num_samples: int, replacement: bool = False, **kw: Any
) -> Any:
    """Each row's ``num_samples`` indices drawn by the generator's ``choice`` with the row's normalised weights (the
    probabilities of the law, compared on replay)."""
    rows = np.atleast_2d(_numpy(weights).astype(float))
    drawn = [rng.choice(row.size, int(num_samples), bool(replacement), row / row.sum()) for row in rows]
    values = np.asarray(drawn).reshape(*np.shape(_numpy(weights))[:-1], int(num_samples))
    return _out(torch, kw, _tensor(torch, values, torch.int64, weights.device))


def _out(torch: Any, kw: dict, made: Any) -> Any:
    """``out=``: the draw written into the tensor given, as torch's ``out`` arguments are."""
    out = kw.get("out")
    if out is None:
        return made
    return out.resize_(made.shape).copy_(made)


_MAKERS: dict[str, Callable] = {
    "normal": _normal, "randn": _randn, "randn_like": _like(_randn), "rand": _rand, "rand_like": _like(_rand),
    "randint": _randint, "randint_like": _like(_randint), "randperm": _randperm, "bernoulli": _bernoulli,
    "poisson": _poisson, "multinomial": _multinomial,
}  # fmt: skip


# --- the in-place draws: maker(rng, tensor, *args, **kwargs) -> values of the tensor's shape ----------------------
def _normal_(rng: np.random.Generator, tensor: Any, mean: float = 0.0, std: float = 1.0) -> Any:
    return rng.normal(float(mean), float(std), tuple(tensor.shape))


def _uniform_(rng: np.random.Generator, tensor: Any, a: float = 0.0, b: float = 1.0, **kw: Any) -> Any:
    low, high = float(kw.get("from", a)), float(kw.get("to", b))
    return rng.uniform(low, high, tuple(tensor.shape))


def _random_(rng: np.random.Generator, tensor: Any, *bounds: Any, **kw: Any) -> Any:
    """``random_()`` (every integer the dtype holds exactly: [0, 2^53] for float64, [0, 2^24] for float32; [0, the
    integer type's largest] else), ``random_(to)``, ``random_(from, to)``."""
    given = [kw.get("from"), kw.get("to")]
    if len(bounds) == 1:
        given = [0, bounds[0]]
    elif len(bounds) == 2:
        given = list(bounds)
    low = int(given[0] or 0)
    high: Any = given[1]
    floating, torch = tensor.dtype.is_floating_point, sys.modules["torch"]
    if high is None:
        digits = {torch.float64: 53, torch.float32: 24, torch.float16: 11, torch.bfloat16: 8}
        top = 2 ** digits.get(tensor.dtype, 8) if floating else None
        high = top if floating else min(int(torch.iinfo(tensor.dtype).max), 2**63 - 1)
    return rng.integers(low, int(high), tuple(tensor.shape), endpoint=floating and given[1] is None)


def _bernoulli_(rng: np.random.Generator, tensor: Any, p: Any = 0.5) -> Any:
    return rng.binomial(1, np.broadcast_to(_numpy(p), tuple(tensor.shape)))


def _exponential_(rng: np.random.Generator, tensor: Any, lambd: float = 1.0) -> Any:
    return rng.exponential(1.0 / float(lambd), tuple(tensor.shape))


def _cauchy_(rng: np.random.Generator, tensor: Any, median: float = 0.0, sigma: float = 1.0) -> Any:
    return float(median) + float(sigma) * np.asarray(rng.standard_cauchy(tuple(tensor.shape)))


def _log_normal_(rng: np.random.Generator, tensor: Any, mean: float = 1.0, std: float = 2.0) -> Any:
    return rng.lognormal(float(mean), float(std), tuple(tensor.shape))


def _geometric_(rng: np.random.Generator, tensor: Any, p: float) -> Any:
    return rng.geometric(float(p), tuple(tensor.shape))


_IN_PLACE: dict[str, Callable] = {
    "normal_": _normal_, "uniform_": _uniform_, "random_": _random_, "bernoulli_": _bernoulli_,
    "exponential_": _exponential_, "cauchy_": _cauchy_, "log_normal_": _log_normal_, "geometric_": _geometric_,
}  # fmt: skip


ADAPTER = Adapter("torch", install, draws=True)
