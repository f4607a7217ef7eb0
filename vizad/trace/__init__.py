"""Walkthroughs: the step records that drawings, the stepper and the notebooks show."""

from .build import trace_forward, trace_reverse
from .derivation import Derivation
from .records import CheckFailure, Contribution, ForwardStep, ReverseStep, TangentTerm
from .traces import ForwardTrace, ReverseTrace

__all__ = [
    "trace_forward",
    "trace_reverse",
    "ReverseTrace",
    "ForwardTrace",
    "ReverseStep",
    "ForwardStep",
    "Contribution",
    "TangentTerm",
    "CheckFailure",
    "Derivation",
]
