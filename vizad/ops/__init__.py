"""Every built-in op, as a function that builds a node.

One module a family: :mod:`~vizad.ops.elementwise` (the protocol of ops that state their local
partial derivatives) and :mod:`~vizad.ops.derivation` (the rules that follow from them),
:mod:`~vizad.ops.arithmetic` (with Node's operators), :mod:`~vizad.ops.elementary`,
:mod:`~vizad.ops.tensor`, :mod:`~vizad.ops.nn` and :mod:`~vizad.ops.structure` (tuples).
Each module's ``__all__`` lists its ops; this package's is their union.
"""

from . import arithmetic, derivation, elementary, nn, structure, tensor
from .arithmetic import *  # noqa: F403
from .elementary import *  # noqa: F403
from .tensor import *  # noqa: F403
from .nn import *  # noqa: F403
from .structure import *  # noqa: F403

__all__ = arithmetic.__all__ + elementary.__all__ + tensor.__all__ + nn.__all__ + structure.__all__

del derivation  # imported for what it sets up: ElementwiseOp's derived rules
