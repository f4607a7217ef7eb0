"""What ``from_torch`` watches while PyTorch traces a function, beyond the ATen ops ``make_fx``
records: whether gradients were enabled at each op (``no_grad`` regions), the user's line of
code of each op, ``detach``/``requires_grad_(False)`` (stop-gradients), tensor hooks, custom
``autograd.Function`` calls (kept as one op, so that their own ``backward`` is used) and what
cannot be imported faithfully (refused by name, with the line).

Two modes do the watching: a TorchFunctionMode sees the calls the user's code makes (above
autograd), a TorchDispatchMode the ATen ops after functionalization and marks the FX nodes
the proxy tracer just made (``node.meta["vizad_grad"]``, ``["vizad_source"]``). A custom
Function and a mark ("this value is detached", "this value has hook k") enter the traced
program as calls of two opaque library ops, ``vizad::call`` and ``vizad::mark``.
"""

from __future__ import annotations

import itertools
import os
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from vizad.errors import BridgeError
from vizad.bridges.optional import require

if TYPE_CHECKING:  # pragma: no cover  (mypy reads PyTorch's own types)
    from types import FrameType, TracebackType

    import torch
    import torch.overrides as overrides
    import torch.utils._python_dispatch as dispatch
    from torch.fx.experimental import proxy_tensor
else:
    torch = require("torch", "torch")
    proxy_tensor = require("torch.fx.experimental.proxy_tensor", "torch")
    dispatch = require("torch.utils._python_dispatch", "torch")
    overrides = require("torch.overrides", "torch")
functional = require("torch._subclasses.functional_tensor", "torch")
pytree = require("torch.utils._pytree", "torch")
checkpoint = require("torch.utils.checkpoint", "torch")
eager_transforms = require("torch._functorch.eager_transforms", "torch")

__all__ = [
    "Capture",
    "OutsideWrite",
    "module_line",
    "WritesInPlace",
    "CALL",
    "MARK",
    "is_user_file",
    "user_line",
    "traceback_line",
]

#: What a ``vizad::call`` node runs, by key: a function of tensors giving a list of tensors.
_CALLS: dict[int, Callable] = {}
_keys = itertools.count()


@torch.library.custom_op("vizad::call", mutates_args=())
def _call(key: int, xs: list[torch.Tensor]) -> list[torch.Tensor]:
    """One opaque op of the traced program: a custom autograd.Function's forward."""
    return [t.detach().clone() for t in _CALLS[key](*xs)]


@torch.library.custom_op("vizad::mark", mutates_args=())
def _mark(key: int, x: torch.Tensor) -> torch.Tensor:
    """``x`` itself, marked (key: what the mark says, kept by the Capture)."""
    return x.detach().clone()


CALL = torch.ops.vizad.call.default
MARK = torch.ops.vizad.mark.default

_TORCH_DIR = os.path.dirname(torch.__file__)
_VIZAD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIPPED = (_TORCH_DIR, _VIZAD_DIR, os.path.dirname(os.__file__) + os.sep + "contextlib")


def is_user_file(filename: str) -> bool:
    """Whether code in ``filename`` is the user's (not PyTorch's, vizad's or contextlib's)."""
    return not filename.startswith(_SKIPPED)


def user_line() -> str | None:
    """``"model.py:12  y = self.bn(x)"``: the innermost frame of the caller's code (not
    PyTorch's, not vizad's), or None."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(_SKIPPED):
            return _line_of(name, frame.f_lineno)
        frame = frame.f_back
    return None


def traceback_line(tb: TracebackType | None) -> str | None:
    """The innermost line of the user's code in a traceback."""
    found = None
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not name.startswith(_SKIPPED):
            found = _line_of(name, tb.tb_lineno)
        tb = tb.tb_next
    return found


def _line_of(filename: str, lineno: int) -> str:
    import linecache

    text = linecache.getline(filename, lineno).strip()
    short = os.path.basename(filename)
    return f"{short}:{lineno}  {text}" if text else f"{short}:{lineno}"


#: Tensor methods and torch functions that cannot be imported faithfully: why, by name.
_REFUSED = {
    "retain_grad": "retain_grad keeps an intermediate's .grad, which a graph has no place for",
    "register_post_accumulate_grad_hook": "a hook after .grad accumulation runs outside the graph",
    "backward": "a backward pass inside the function",
    "grad": "torch.autograd.grad inside the function",
    "set_": "set_ swaps a tensor's storage",
}


#: Tensor methods that read a tensor's value out of PyTorch (into Python or numpy), by name:
#: what the message calls them. Read from a value computed from the inputs, the number read
#: while tracing would be a constant of the import, wrong at any other input.
_READS = {
    "numpy": ".numpy()",
    "__array__": "numpy (np.asarray, np.median(h), ...)",
    "tolist": ".tolist()",
    "item": ".item()",
    "__float__": "float()",
    "__int__": "int()",
    "__complex__": "complex()",
    "__bool__": "a Python condition (if, while, and, or, bool())",
    "__index__": "an index (a list indexed by a tensor, range(), ...)",
}

#: The names of the calls that _Calls looks at (``__get__``/``__set__``: a tensor's
#: attributes, ``.data`` and ``.requires_grad`` among them).
_WATCHED = frozenset(
    {
        "detach",
        "detach_",
        "requires_grad_",
        "register_hook",
        "__get__",
        "__set__",
        *_REFUSED,
        *_READS,
        "__format__",
        "tensor",
        "new_tensor",
    }
)

#: PyTorch's Python wrappers that pass a tensor method on to a mode (``Tensor.__array__``).
_WRAPPERS = tuple(os.path.join(_TORCH_DIR, f) for f in ("_tensor.py", "overrides.py"))
_NUMPY_DIR = os.path.dirname(np.__file__)


class Capture:
    """While ``make_fx`` traces: the modes, the Function.apply wrapper, and what they saw.

    ``marks`` maps a mark's key to what it says: ``("stop",)`` (the mark is the value
    detached), ``("freeze",)`` (the value has no gradient from here on: requires_grad_(False)),
    ``("hook", fn, line)`` (a tensor hook on the marked value). ``calls`` maps a call's key
    to ``(cls, run)``: the Function and the function of its tensor arguments that runs it.
    ``generators`` maps a ``torch.Generator`` a random op drew from (by id) to it and its
    state before the first draw."""

    def __init__(self, functionalize: bool = False) -> None:
        self.marks: dict[int, tuple] = {}
        self.calls: dict[int, tuple] = {}
        self.generators: dict[int, tuple[torch.Generator, torch.Tensor]] = {}
        self.functionalize = functionalize

    def rewind(self) -> None:
        """Put the generators the function drew from back to their states before it did."""
        for generator, state in self.generators.values():
            generator.set_state(state)

    def run(self, fn: Callable, tensors: Sequence[torch.Tensor]) -> Any:
        """``fn`` of ``tensors`` inside ``make_fx``, watched by the two modes, with custom
        Functions as ``vizad::call`` ops; with ``functionalize``, functionalized as
        AOTAutograd does (FunctionalTensorMode: in-place ops become out-of-place ones).
        Without, the first op that writes in place raises :class:`WritesInPlace` before it
        runs (functionalization costs a third more: it is paid only where needed)."""
        with self._functions(), _no_transforms(), _Calls(self), _Ops(self):
            if not self.functionalize:
                return fn(*tensors)
            with functional.FunctionalTensorMode(), _Outside():
                out = fn(*(functional.FunctionalTensor.to_functional(t) for t in tensors))
        return pytree.tree_map(_from_functional, out)

    @contextmanager
    def _functions(self) -> Iterator[None]:
        """Function.apply kept as one op while tracing."""
        function = torch.autograd.function.Function
        original = function.__dict__["apply"]
        # (patched while tracing, and restored: mypy sees a method assigned)
        function.apply = classmethod(self._apply(original.__func__))  # type: ignore[method-assign, assignment]
        try:
            yield
        finally:
            function.apply = original  # type: ignore[method-assign]

    def forget(self) -> None:
        """Drop the functions kept for the ``vizad::call`` nodes of this trace."""
        for key in self.calls:
            _CALLS.pop(key, None)

    def mark(self, x: torch.Tensor, what: tuple) -> torch.Tensor:
        key = next(_keys)
        self.marks[key] = what
        return MARK(key, x)

    def _apply(self, apply: Callable) -> Callable:
        capture = self

        def watched(cls: type, *args: Any, **kwargs: Any) -> Any:
            if cls is checkpoint.CheckpointFunction:  # (function, preserve_rng_state, *args)
                # a reentrant checkpoint saves memory, and is the function it runs: traced
                # through (its backward refuses torch.autograd.grad, and runs the function
                # on the module's own parameters, not the import's inputs)
                return args[0](*args[2:])
            positions = [k for k, a in enumerate(args) if isinstance(a, torch.Tensor)]

            def run(*tensors: torch.Tensor) -> list[torch.Tensor]:
                filled = list(args)
                for k, t in zip(positions, tensors):
                    filled[k] = t
                out = apply(cls, *filled, **kwargs)
                return list(out) if isinstance(out, (tuple, list)) else [out]

            key = next(_keys)
            _CALLS[key] = lambda *xs: _no_grad(run, xs)
            capture.calls[key] = (cls, run, user_line())
            out = CALL(key, [args[k] for k in positions])
            return out[0] if len(out) == 1 else tuple(out)

        return watched


#: torch.func's functions that differentiate, by the name of their code: what a user calls.
_TRANSFORMS = {
    "grad_impl": "torch.func.grad",
    "grad_and_value_impl": "torch.func.grad_and_value",
    "_vjp_with_argnums": "torch.func.vjp (jacrev, hessian)",
    "_jvp_with_argnums": "torch.func.jvp (jacfwd)",
}


@contextmanager
def _no_transforms() -> Iterator[None]:
    """torch.func's differentiating transforms refused while tracing, naming the user's
    line: make_fx would keep the derivative's values at the example as the graph (wrong
    beside it, and as a function of the inputs: 78 off), or vizad's check would fail in
    PyTorch (saved tensor hooks)."""
    originals = {
        name: getattr(eager_transforms, name)
        for name in ("grad_increment_nesting", "jvp_increment_nesting")
    }

    def refuse(*args: Any, **kwargs: Any) -> Any:
        frame: FrameType | None = sys._getframe(1)
        name = "a torch.func transform"
        while frame is not None:  # (the outermost: grad calls grad_and_value)
            name = _TRANSFORMS.get(frame.f_code.co_name, name)
            frame = frame.f_back
        raise BridgeError(
            f"from_torch: {name} differentiates inside the function, at {user_line()}: vizad "
            "refuses it (the import would hold the derivative PyTorch computed at the example "
            "as a graph, not its rule: wrong at other inputs and to differentiate again). "
            "Import the function it differentiates and take vz.gradients of it"
        )

    for name in originals:
        setattr(eager_transforms, name, refuse)
    try:
        yield
    finally:
        for name, original in originals.items():
            setattr(eager_transforms, name, original)


def _from_functional(value: Any) -> Any:
    if not isinstance(value, functional.FunctionalTensor):
        return value
    torch._sync(value)
    return torch._from_functional_tensor(value.elem)


def _no_grad(
    run: Callable[..., list[torch.Tensor]], xs: Sequence[torch.Tensor]
) -> list[torch.Tensor]:
    with torch.no_grad():
        return run(*xs)


class _Calls(overrides.TorchFunctionMode):
    """The user's calls: detach, requires_grad_, register_hook; refused ones by name."""

    def __init__(self, capture: Capture) -> None:
        super().__init__()
        self.capture = capture

    def __torch_function__(
        self,
        func: Callable,
        types: Sequence[type],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if name not in _WATCHED:  # most calls: straight through
            return func(*args, **kwargs)
        if name in ("__get__", "__set__"):
            return self._attribute(func, name, args)
        tensor_method = getattr(func, "__objclass__", None) is torch._C.TensorBase or (
            getattr(func, "__qualname__", "").startswith("Tensor.")
        )
        if name in _READS and tensor_method:
            _refuse_read(name, args[0])
        if name == "__format__" and tensor_method and _from_inputs(args[0]):
            return _formatted(func, args, kwargs)
        if func is torch.tensor or (name == "new_tensor" and tensor_method):
            return self._copied(func, args, kwargs)
        if name in ("detach", "detach_") and (tensor_method or func is torch.detach):
            return self.capture.mark(args[0], ("stop",))
        if name == "requires_grad_" and tensor_method:
            wanted = args[1] if len(args) > 1 else kwargs.get("requires_grad", True)
            if not wanted:
                self.capture.mark(args[0], ("freeze",))
            return args[0]
        if name == "register_hook" and tensor_method:
            hook = args[1] if len(args) > 1 else kwargs["hook"]
            self.capture.mark(args[0], ("hook", hook, user_line()))
            return _Handle()
        if name in _REFUSED and (tensor_method or func in (torch.autograd.grad,)):
            raise BridgeError(
                f"from_torch cannot import {name} ({_REFUSED[name]}), at {user_line()}"
            )
        return func(*args, **kwargs)

    def _copied(self, func: Callable, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        """``torch.tensor(data)`` (``x.new_tensor(data)``): of a tensor, its value copied
        without gradient history (a stop-gradient, as PyTorch gives it); of a list holding
        tensors computed from the inputs, refused (PyTorch reads their values out)."""
        data = args[0] if func is torch.tensor else args[1] if len(args) > 1 else None
        if data is None:
            data = kwargs.get("data")
        if isinstance(data, torch.Tensor):
            return self.capture.mark(func(*args, **kwargs), ("stop",))
        if any(_from_inputs(t) for t in _tensors_in(data)):
            raise BridgeError(
                "from_torch: torch.tensor of a list holding tensors computed from the inputs "
                f"reads their values out of PyTorch, at {user_line()}: the import would keep "
                "them as constants, wrong at any other input. Use torch.stack(...) (and "
                ".detach() for PyTorch's copy without gradient)"
            )
        return func(*args, **kwargs)

    def _attribute(self, func: Callable, name: str, args: Sequence[Any]) -> Any:
        """``x.data`` read by the user's code is ``x`` detached; setting ``x.data`` is
        refused; ``x.requires_grad = False`` is ``x.requires_grad_(False)``."""
        owner = getattr(func, "__self__", None)
        attribute = getattr(owner, "__name__", None)
        if getattr(owner, "__objclass__", None) is not torch._C.TensorBase:
            return func(*args)
        if attribute == "data" and name == "__get__":
            if not is_user_file(sys._getframe(2).f_code.co_filename):
                return func(*args)  # PyTorch's own code (reading a value)
            return self.capture.mark(args[0], ("stop",))
        if attribute == "data":
            raise BridgeError(
                "from_torch cannot import setting .data (it replaces a tensor's values "
                "behind autograd's back, which a graph has no place for; compute the new "
                f"value out of place), at {user_line()}"
            )
        if attribute == "requires_grad" and name == "__set__":
            if not args[1]:
                self.capture.mark(args[0], ("freeze",))
            return None
        return func(*args)


def _refuse_read(name: str, x: torch.Tensor) -> None:
    """A BridgeError for the user's code (or numpy's, called by it) reading the value of a
    tensor computed from the inputs: the import would keep the number read while tracing as
    a constant (``torch.jit.trace`` warns of it; make_fx refuses ``.item()`` with its own
    words). PyTorch's own code reading values (printing a tensor) is let through."""
    frame: FrameType | None = sys._getframe(2)  # (past _refuse_read, __torch_function__)
    while frame is not None and frame.f_code.co_filename.startswith(_WRAPPERS):
        frame = frame.f_back
    if frame is None or frame.f_code.co_filename.startswith(_TORCH_DIR):
        return
    if not _from_inputs(x):
        return
    while frame is not None and frame.f_code.co_filename.startswith((*_SKIPPED, _NUMPY_DIR)):
        frame = frame.f_back
    line = _line_of(frame.f_code.co_filename, frame.f_lineno) if frame else "an unknown line"
    raise BridgeError(
        f"from_torch: {_READS[name]} reads the value of a tensor computed from the inputs "
        f"out of PyTorch, at {line}: the import would keep the value it had while tracing "
        "as a constant, wrong at any other input. Compute it with torch ops (torch.median, "
        "torch.where for an if), or compute it before the call and pass it as an argument"
    )


def _tensors_in(data: Any) -> list:
    """The tensors in nested lists and tuples (torch.tensor's data)."""
    if isinstance(data, torch.Tensor):
        return [data]
    if isinstance(data, (list, tuple)):
        return [t for d in data for t in _tensors_in(d)]
    return []


def _formatted(func: Callable, args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    """``f"{loss:.3f}"`` of a traced tensor: the text of its value at the example arguments,
    as the user's own call prints it (a string: nothing of it enters the graph; make_fx
    refuses to read the value)."""
    x = args[0]
    if isinstance(x, functional.FunctionalTensor):
        torch._sync(x)
        x = torch._from_functional_tensor(x.elem)
    with proxy_tensor.disable_proxy_modes_tracing():
        return func(x, *args[1:], **kwargs)


def _from_inputs(x: torch.Tensor) -> bool:
    """Whether a tensor being traced is computed from the traced function's arguments (not
    a constant, nor made from constants alone)."""
    mode = proxy_tensor.get_proxy_mode()
    if mode is None or not isinstance(x, torch.Tensor):
        return False
    if isinstance(x, functional.FunctionalTensor):
        x = torch._from_functional_tensor(x.elem)
    slot = proxy_tensor.get_proxy_slot(x, mode.tracer, None)
    if slot is None or slot.constant is not None:
        return False
    seen, todo = set(), [slot.proxy.node]
    while todo:
        n = todo.pop()
        if n.op == "placeholder":
            return True
        fresh = [a for a in n.all_input_nodes if a not in seen]
        seen.update(fresh)
        todo.extend(fresh)
    return False


class _Handle:
    """What ``register_hook`` returns while tracing (removing it is refused: a hook removed
    before the backward pass is a hook PyTorch never calls)."""

    def remove(self) -> None:
        raise BridgeError(
            f"from_torch: a tensor hook removed inside the function, at {user_line()}, "
            "cannot be imported (register it outside, or not at all)"
        )


class _Outside(dispatch.TorchDispatchMode):
    """Above functionalization: refuses an op that would write to a tensor the traced
    function did not get as an argument (a module's counter or running statistics that it
    closes over), before it runs."""

    def __torch_dispatch__(
        self,
        func: torch._ops.OpOverload,
        types: Sequence[type],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = kwargs or {}
        if func._schema.is_mutable:
            given = dict(zip((a.name for a in func._schema.arguments), args)) | kwargs
            for a in func._schema.arguments:
                value = given.get(a.name)
                written = a.alias_info is not None and a.alias_info.is_write
                if (
                    written
                    and isinstance(value, torch.Tensor)
                    and not isinstance(value, functional.FunctionalTensor)
                ):
                    raise OutsideWrite(func, value)
        out = func(*args, **kwargs)
        if any(r.alias_info is not None for r in func._schema.returns):
            return out
        # a new tensor made from constants alone (MultiheadAttention's float mask:
        # zeros_like(the closed-over bool mask)) is the function's own: functionalization
        # leaves it plain, and its in-place fill (masked_fill_) would count as a write
        # outside. Wrapped, its writes are functionalized like any other.
        return pytree.tree_map_only(torch.Tensor, _own, out)


def _own(x: torch.Tensor) -> torch.Tensor:
    """A tensor the traced function made, as a FunctionalTensor (unchanged if it is one)."""
    if isinstance(x, functional.FunctionalTensor) or torch._is_functional_tensor(x):
        return x
    return functional.FunctionalTensor.to_functional(x)


class OutsideWrite(Exception):
    """The traced function writes to a tensor that is not one of its arguments: ``op``'s
    name, and what the tensor is (dtype and shape)."""

    def __init__(self, func: torch._ops.OpOverload, tensor: torch.Tensor) -> None:
        self.op = func.name()  # aten::add_.Tensor
        self.tensor = _described(tensor)
        if tensor._base is not None:
            self.tensor += f", a view of {_described(tensor._base)}"
        super().__init__(f"{self.op} writes to {self.tensor}")


def _described(t: torch.Tensor) -> str:
    dtype = str(t.dtype).removeprefix("torch.")
    return f"{'an' if dtype[0] in 'aeiou' else 'a'} {dtype} tensor of shape {tuple(t.shape)}"


def module_line(tb: TracebackType | None) -> str | None:
    """The innermost line of torch.nn's own code (a module's forward) in a traceback."""
    found, nn = None, os.path.join(_TORCH_DIR, "nn") + os.sep
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name.startswith(nn):
            found = f"{_line_of(name, tb.tb_lineno)} (in {tb.tb_frame.f_code.co_name})"
        tb = tb.tb_next
    return found


class WritesInPlace(Exception):
    """An op of a program traced without functionalization writes in place."""


class _Ops(dispatch.TorchDispatchMode):
    """The ATen ops (after functionalization): marks the FX nodes each one made with the grad
    mode and the user's line."""

    def __init__(self, capture: Capture) -> None:
        super().__init__()
        self.capture = capture
        # (made inside make_fx, whose proxy mode is then active)
        self.graph = proxy_tensor.get_proxy_mode().tracer.graph  # type: ignore[union-attr]

    def __torch_dispatch__(
        self,
        func: torch._ops.OpOverload,
        types: Sequence[type],
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        if not self.capture.functionalize and func._schema.is_mutable:
            raise WritesInPlace(str(func))
        generator = kwargs.get("generator") if kwargs else None
        if generator is not None:  # (a random op drawing from the user's torch.Generator)
            self.capture.generators.setdefault(id(generator), (generator, generator.get_state()))
        graph = self.graph
        before = len(graph.nodes)
        out = func(*args, **(kwargs or {}))
        made = len(graph.nodes) - before
        if made:
            grad, line = torch.is_grad_enabled(), user_line()
            node = graph._root.prev
            for _ in range(made):
                node.meta["vizad_grad"], node.meta["vizad_source"] = grad, line
                node = node.prev
        return out
