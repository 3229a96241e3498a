"""A torch tensor in a release, read completely (the release codec's reader of torch's tensors).

torch is in ``sys.modules`` wherever a release holds a tensor, so it is never imported here.  A dense tensor
(``torch.Tensor`` or ``torch.nn.Parameter``, the exact classes) is a dtype, a shape, strides and an offset into a
storage, a device, flags (``requires_grad``, the lazy conjugate and negative bits ``is_conj()``/``is_neg()``,
``is_inference()``: an inference tensor refuses autograd and in-place updates outside inference mode), names (named
tensors, where torch has them: torch 2.13 has none), a ``grad`` a reader can set on a leaf, an autograd graph
(``grad_fn``) on a tensor computed from others, and a ``__dict__``; ``torch.save`` and pickle write the whole storage,
the strides, ``requires_grad`` and the ``__dict__``, and keep which tensors and arrays share a storage.  So a tensor
is read as its class, dtype, device, flags, names, strides, which storage met before in the release it is, if any
(``a`` and ``a.view(2, 2)``, ``t`` and ``t.numpy()``, ``torch.from_numpy(n)`` and ``n``: :mod:`release_buffers`),
and values (as a numpy array of its dtype -- a bfloat16 widened to float32, which holds its bits: a bfloat16 is a
float32's upper half, NaN payloads included), then its ``grad``, encoded in turn, and it is accepted only where the
rest is nothing: its storage is its own values (offset 0, as many bytes as its elements: a view of a larger storage
shows, and pickles, the rest), it has no ``grad_fn`` (the graph holds the tensors it was computed from:
``x.detach()``) and no attribute of its own.  Another layout, a quantized or nested tensor, a subclass, or a dtype
numpy has no exact image of (float8, complex32) is refused in one line.  **Not read:** autograd hooks, private state.
"""

from __future__ import annotations

import sys
from typing import Any

from pdp_audit.verify.inputs.release_arrays import read_values
from pdp_audit.verify.inputs.release_walk import Encoder

#: How to return a tensor the module does not read.
FIX = "return a dense torch.Tensor of its own (x.detach().clone()), or convert it to numpy"


def read(walk: Encoder, x: Any) -> bool:
    """Whether ``x`` is a torch tensor, encoded (module notes), or refused in one line."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(x, torch.Tensor):
        return False
    kind = type(x)
    plain = kind is torch.Tensor or kind is torch.nn.Parameter
    if not plain or x.layout != torch.strided or x.is_quantized or x.is_nested:
        walk.refuse(
            f"a {kind.__module__}.{kind.__qualname__} ({x.layout}{', quantized' if x.is_quantized else ''})", FIX
        )
    why = _refusal(x)
    if why is not None:
        walk.refuse(f"a torch tensor {why}", FIX)
    values = x.detach()
    if values.dtype == torch.bfloat16:
        values = values.float()
    try:
        array = values.numpy(force=True)  # on the CPU, the conjugate and negative bits resolved (they are read)
    except (TypeError, RuntimeError):
        walk.refuse(f"a torch tensor of dtype {x.dtype} on {x.device}, which numpy cannot hold exactly", FIX)
    names = tuple(x.names) if hasattr(torch.Tensor, "names") else ()  # torch 2.13 removed named tensors
    flags = (bool(x.requires_grad), bool(x.is_conj()), bool(x.is_neg()), bool(x.is_inference()), names, x.stride())
    grad = x.grad
    shared = walk.buffer(x.data_ptr(), x.untyped_storage().nbytes())  # its storage starts at its data (offset 0)
    head = ("torch", kind.__name__, str(x.dtype), str(x.device), flags, None if grad is None else "grad", shared)
    read_values(walk, array, head)
    if grad is not None:
        walk.value(grad)
    return True


def _refusal(x: Any) -> str | None:
    """Why a dense tensor is not read (module notes), as the words after "a torch tensor"; None where it is."""
    if x.grad_fn is not None:
        return f"attached to an autograd graph (grad_fn {type(x.grad_fn).__name__}: it holds what it was computed from)"
    attributes = getattr(x, "__dict__", None)
    if attributes:
        return f"with attributes {sorted(map(str, attributes))} of its own"
    if x.storage_offset() != 0 or x.untyped_storage().nbytes() != x.numel() * x.element_size():
        return "that is a view of a larger storage (pickle writes all of it)"
    return None
