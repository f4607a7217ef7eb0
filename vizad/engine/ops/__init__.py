"""Every built-in op, as a function that builds a node.

One module a family: :mod:`~vizad.engine.ops.elementwise` (the protocol of ops that state their
local partial derivatives) and :mod:`~vizad.engine.ops.derivation` (the rules that follow from
them), :mod:`~vizad.engine.ops.arithmetic` (with Node's operators),
:mod:`~vizad.engine.ops.elementary`, :mod:`~vizad.engine.ops.tensor`, :mod:`~vizad.engine.ops.nn`
and :mod:`~vizad.engine.ops.structure` (tuples).
Each module's ``__all__`` lists its ops; this package's is their union.
"""

from vizad.engine.ops import arithmetic, derivation, elementary, nn, structure, tensor
from vizad.engine.ops.arithmetic import *  # noqa: F403
from vizad.engine.ops.elementary import *  # noqa: F403
from vizad.engine.ops.tensor import *  # noqa: F403
from vizad.engine.ops.nn import *  # noqa: F403
from vizad.engine.ops.structure import *  # noqa: F403

__all__ = arithmetic.__all__ + elementary.__all__ + tensor.__all__ + nn.__all__ + structure.__all__

del derivation  # imported for what it sets up: ElementwiseOp's derived rules
