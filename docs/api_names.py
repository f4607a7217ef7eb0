"""The public modules the API reference documents and the names each promises: read by
docs/conf.py (which writes a page per name) and by tests/test_docs.py (which checks the built
pages), with no side effect on import."""

from __future__ import annotations

import importlib

#: The public modules whose ``__all__`` the reference documents, with a line on each.
MODULES = {
    "vizad": "the everyday names: variables and ops, gradients, traces, drawings, the stepper",
    "vizad.engine.ops": "every op",
    "vizad.extend": "what op authors and bridge authors need",
    "vizad.trace": "the walkthroughs' types: traces, steps, names, derivations, checks",
    "vizad.errors": "the errors vizad raises, each a VizadError",
    "vizad.engine.numerical": "finite differences and gradient checks",
    "vizad.engine.derivatives": "Jacobians and Hessian-vector products",
    "vizad.view.render": "drawings and layouts",
    "vizad.view.widget": "the stepper",
    "vizad.bridges.imported": "what vz.from_torch and vz.from_jax return: a function as a graph",
    "vizad.bridges.saved": "what PyTorch and JAX save for the backward pass, and what vizad keeps",
    "vizad.classroom.diagnosis": "diagnoses of a student's engine",
    "vizad.classroom.grading": "grading a student's engine with a course's cases",
    "vizad.trace.examples": "the example graphs of the tutorials",
    "vizad.classroom.exercises": "checks for the notebooks' exercises",
}


def public_names(module_name: str) -> list[str]:
    """The names a module promises: its ``__all__`` (the top level: and its lazy names)."""
    module = importlib.import_module(module_name)
    names = set(getattr(module, "__all__", ()))
    if module_name == "vizad":
        names |= set(module._LAZY)
    return sorted(names)
