"""Walkthroughs: the step records that drawings, the stepper and the notebooks show."""

from vizad.trace.build import trace_forward, trace_reverse
from vizad.trace.derivation import Derivation
from vizad.trace.element import ElementPart, Term
from vizad.trace.records import (
    CheckFailure,
    Contribution,
    ElementStep,
    ForwardStep,
    ReverseStep,
    TangentTerm,
)
from vizad.trace.memory import Held, Memory, MemoryStep
from vizad.trace.names import Name, Names
from vizad.trace.traces import ElementTrace, ForwardTrace, ReverseTrace, Trace

__all__ = [
    "trace_forward",
    "trace_reverse",
    "Trace",
    "Names",
    "Name",
    "ReverseTrace",
    "ForwardTrace",
    "ElementTrace",
    "ElementStep",
    "ElementPart",
    "Term",
    "ReverseStep",
    "ForwardStep",
    "Contribution",
    "TangentTerm",
    "CheckFailure",
    "Derivation",
    "Memory",
    "MemoryStep",
    "Held",
]
