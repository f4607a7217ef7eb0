"""Walkthroughs: the step records that drawings, the stepper and the notebooks show."""

from .build import trace_forward, trace_reverse
from .derivation import Derivation
from .records import CheckFailure, Contribution, ForwardStep, ReverseStep, TangentTerm
from .names import Name, Names
from .traces import ForwardTrace, ReverseTrace, Trace

__all__ = [
    "trace_forward",
    "trace_reverse",
    "Trace",
    "Names",
    "Name",
    "ReverseTrace",
    "ForwardTrace",
    "ReverseStep",
    "ForwardStep",
    "Contribution",
    "TangentTerm",
    "CheckFailure",
    "Derivation",
]
