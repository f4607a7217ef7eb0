"""Bridges to other frameworks: PyTorch's and JAX's backward passes as walkthroughs, and their
functions as vizad graphs.

Each module here imports its framework when it is first imported (``import vizad`` imports
none of them, and none of the trace, drawing or stepper layers knows a framework): the front
door loads them on first use of ``vz.torch_backward``, ``vz.from_torch``, ``vz.from_jax``,
``vz.jax_backward``. A missing framework is a :class:`~vizad.errors.MissingExtraError` naming
the extra that installs it (``pip install 'vizad[torch]'``).
"""
