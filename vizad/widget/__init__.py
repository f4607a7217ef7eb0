"""The step-through debugger widget."""

from .stepper import Stepper, step

__all__ = ["Stepper", "step"]
