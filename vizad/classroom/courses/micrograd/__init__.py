"""Karpathy's micrograd over vizad's engine: ``engine.Value`` and ``nn`` behave as micrograd's
(the repository's and the lecture's: labels, tanh, exp, division and powers), and every Value
is an eager vizad node, so ``vz.draw(L)`` and ``vz.step(L)`` show the graph that ran::

    from vizad.classroom.courses.micrograd.engine import Value
    a = Value(2.0, label="a"); b = Value(-3.0, label="b")
    e = a * b; e.label = "e"
    e.backward()
    vz.draw(e)          # instead of draw_dot(e): data and grad of every node
"""

from vizad.classroom.courses.micrograd import engine, nn

__all__ = ["engine", "nn"]
