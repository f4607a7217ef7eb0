"""Whether PyTorch's own backward pass of a function that writes in place would run.

PyTorch refuses to differentiate through a value that an op saved for its backward pass and
that was written in place afterwards (``y = x.sigmoid(); y.mul_(2)``: "one of the variables
needed for gradient computation has been modified by an inplace operation"), and a write
through ``.detach()`` or ``.data`` changes values behind autograd's back. The functionalized
program ``from_torch`` traces has neither problem, so it would give a gradient PyTorch never
computes. :func:`refuse_unfaithful` runs the function once as PyTorch does (eagerly, with
autograd recording; only for a function that writes in place, the only kind that can fail so)
and refuses it, naming both ops and their lines, when PyTorch's backward would raise or
would read values changed behind its back.

The check is PyTorch's own: every tensor an op saves goes through a saved-tensor hook that
notes its version counter, and a saved tensor whose version moved, in a node that
``backward()`` runs (one reachable from the result), is what PyTorch's unpacking refuses.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from vizad.errors import BridgeError
from vizad.bridges.optional import require
from vizad.bridges.torch_capture import is_user_file, traceback_line, user_line

torch = require("torch", "torch")
overrides = require("torch.overrides", "torch")
pytree = require("torch.utils._pytree", "torch")

if TYPE_CHECKING:  # pragma: no cover
    from torch import Tensor
    from torch.autograd.graph import Node as GradFn
    from torch.overrides import TorchFunctionMode
else:
    TorchFunctionMode = overrides.TorchFunctionMode

__all__ = ["refuse_unfaithful"]

#: How a person writes the in-place methods PyTorch names with dunders.
_SPELLED = {
    "__setitem__": "index assignment",
    "__iadd__": "+=",
    "__isub__": "-=",
    "__imul__": "*=",
    "__itruediv__": "/=",
}


def refuse_unfaithful(call: Callable, tensors: Sequence, name: str) -> None:
    """Run ``call(*tensors)`` as PyTorch does (the tensors to differentiate require
    gradients) and raise a BridgeError naming the ops and lines when PyTorch's backward of
    the result would fail on a value written in place after it was saved, or when the
    function writes to a tensor that shares its values with a ``.detach()``/``.data`` of
    another (PyTorch then computes with values changed behind autograd's back)."""
    watch = _Watch()
    try:
        with (
            torch.enable_grad(),
            torch.autograd.graph.saved_tensors_hooks(watch.pack, _unpacked),
            watch,
        ):
            out = call(*tensors)
    except BridgeError:
        raise
    except RuntimeError as exc:
        if "leaf Variable that requires grad" in str(exc):
            raise BridgeError(
                f"from_torch: {name!r} writes in place to a tensor it differentiates (an "
                f"argument or a parameter), at {traceback_line(exc.__traceback__)}: PyTorch "
                "refuses an in-place op on a leaf that requires grad (write to a clone, or "
                "under torch.no_grad())"
            ) from None
        raise BridgeError(
            f"from_torch: {name!r} fails when PyTorch runs it with gradients "
            f"({type(exc).__name__}: {exc}), at {traceback_line(exc.__traceback__)}"
        ) from exc
    watch.refuse_behind_autograd(name)
    watch.refuse_stale(_reachable(out), name)


def _unpacked(value: Tensor) -> Tensor:
    return value


def _version(t: Tensor) -> int:
    try:
        return t._version
    except RuntimeError:  # an inference tensor has no version counter
        return -1


def _storage(t: Tensor) -> int:
    """Which memory ``t`` views (0: none to speak of)."""
    try:
        return t.untyped_storage().data_ptr()
    except (RuntimeError, NotImplementedError):
        return 0


class _Watch(TorchFunctionMode):
    """Each call of the function: the tensors its ops saved for backward (with their version
    then), the tensors it wrote in place, the ``.detach()``/``.data`` views it took, and the
    user's line of each that matters."""

    def __init__(self) -> None:
        super().__init__()
        self.current = -1  # the call in progress (-1: none, as in a custom Function's ctx)
        self.count = 0
        self.saved: list[tuple[Any, int, int]] = []  # (tensor, its version, call)
        self.writes: list[tuple[int, int, int]] = []  # (storage, version after, call)
        self.viewed: dict[int, int] = {}  # {storage: the call that took a detached view}
        self.said: dict[int, tuple[str, str | None]] = {}  # {call: (its name, its line)}
        self.unrecorded: list[int] = []  # writes under no_grad to tensors that require grad

    def pack(self, t: Tensor) -> Tensor:
        self.saved.append((t, _version(t), self.current))
        return t

    def __torch_function__(
        self,
        func: Callable,
        types_: Sequence[type] = (),
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        k, self.count = self.count, self.count + 1
        given = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
        versions = [_version(t) for t in given]
        saved = len(self.saved)
        grad = torch.is_grad_enabled()
        outer, self.current = self.current, k
        try:
            out = func(*args, **kwargs)
        finally:
            self.current = outer
        name = _name(func)
        wrote = False
        for t, v in zip(given, versions):
            if v >= 0 and _version(t) != v and _storage(t):
                self.writes.append((_storage(t), _version(t), k))
                wrote = True
                if not grad and t.requires_grad:
                    self.unrecorded.append(k)
        if name in ("detach", "data") and isinstance(out, torch.Tensor) and _storage(out):
            if name == "detach" or is_user_file(sys._getframe(1).f_code.co_filename):
                self.viewed.setdefault(_storage(out), k)
                wrote = True
        if wrote or len(self.saved) > saved:
            self.said[k] = (name, user_line())
            if len(self.saved) > saved:
                for o in pytree.tree_leaves(out):
                    if isinstance(o, torch.Tensor) and o.grad_fn is not None:
                        o.grad_fn.metadata.setdefault("vizad_calls", set()).add(k)
        return out

    def refuse_behind_autograd(self, name: str) -> None:
        """A write to memory a ``.detach()``/``.data`` view shares, after the view; a write
        with gradients disabled to a tensor that requires them."""
        for k in self.unrecorded:
            op, line = self.said[k]
            raise BridgeError(
                f"from_torch: {name!r}: {_spelled(op)} (at {line}) writes in place, with "
                "gradients disabled (torch.no_grad()), to a tensor that requires them: "
                "PyTorch keeps that tensor's gradient path through the changed values, "
                "which an imported graph cannot follow (compute the new value out of place, "
                "or change it before calling the function)"
            )
        for storage, _, k in self.writes:
            taken = self.viewed.get(storage)
            if taken is not None and taken < k:
                op, line = self.said[k]
                view, view_line = self.said[taken]
                raise BridgeError(
                    f"from_torch: {name!r}: {_spelled(op)} (at {line}) writes in place to a "
                    f"tensor that shares its values with the .{view} taken at ({view_line}): "
                    "PyTorch then computes with values changed behind autograd's back, which "
                    "an imported graph cannot follow (take .detach().clone(), or compute out "
                    "of place)"
                )

    def refuse_stale(self, reachable: set[int], name: str) -> None:
        """A tensor saved by an op that ``backward()`` runs, written in place since."""
        for t, version, k in self.saved:
            if (k < 0 or k in reachable) and version >= 0 and _version(t) != version:
                saver, saver_line = self.said.get(k, ("a custom Function", None))
                writer, line = self._writer(t, version)
                raise BridgeError(
                    f"from_torch: {name!r} cannot be differentiated as PyTorch differentiates "
                    f"it: {_spelled(writer)} (at {line}) writes in place to a value that "
                    f"{_spelled(saver)} (at {saver_line or 'an unknown line'}) saved for its "
                    "backward pass, and PyTorch's backward raises 'one of the variables "
                    "needed for gradient computation has been modified by an inplace "
                    "operation' (compute it out of place, y = y * 2, or write to a clone)"
                )

    def _writer(self, t: Tensor, version: int) -> tuple[str, str | None]:
        storage = _storage(t)
        for where, after, k in self.writes:
            if where == storage and after > version:
                return self.said[k]
        return ("an in-place op", None)


def _name(func: Callable) -> str:
    """A call's name (``mul_``; ``data`` for the ``.data`` attribute)."""
    owner = getattr(func, "__self__", None)
    if isinstance(owner, types.GetSetDescriptorType):
        return owner.__name__
    return getattr(func, "__name__", type(func).__name__)


def _spelled(op: str) -> str:
    return _SPELLED.get(op, op)


def _reachable(out: Any) -> set[int]:
    """The calls whose autograd nodes ``backward()`` of ``out`` runs (every node reachable
    from the result's)."""
    stack = [
        t.grad_fn
        for t in pytree.tree_leaves(out)
        if isinstance(t, torch.Tensor) and t.grad_fn is not None
    ]
    seen: set[GradFn] = set()
    calls: set[int] = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        calls.update(node.metadata.get("vizad_calls", ()))
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return calls
