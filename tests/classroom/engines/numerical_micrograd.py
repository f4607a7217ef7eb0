"""A micrograd Value whose backward() is central finite differences over the whole graph (a
submission that implements no derivative: the grader must score it 0)."""

# ruff: noqa
import math


class Value:
    def __init__(self, data, _children=(), _op="", _f=None):
        self.data, self.grad, self._prev, self._op, self._f = data, 0.0, tuple(_children), _op, _f

    def _make(self, others, f, op):
        others = [o if isinstance(o, Value) else Value(o) for o in others]
        return Value(f(*[o.data for o in [self, *others]]), (self, *others), op, f)

    def __add__(self, o):
        return self._make([o], lambda a, b: a + b, "+")

    def __mul__(self, o):
        return self._make([o], lambda a, b: a * b, "*")

    def __pow__(self, k):
        return self._make([], lambda a: a**k, "**")

    def relu(self):
        return self._make([], lambda a: a if a > 0 else 0.0, "relu")

    def tanh(self):
        return self._make([], math.tanh, "tanh")

    def exp(self):
        return self._make([], math.exp, "exp")

    def __neg__(self):
        return self * -1

    def __radd__(self, o):
        return self + o

    def __sub__(self, o):
        return self + (-o)

    def __rsub__(self, o):
        return o + (-self)

    def __rmul__(self, o):
        return self * o

    def __truediv__(self, o):
        return self * o**-1

    def __rtruediv__(self, o):
        return o * self**-1

    def _order(self):
        topo, seen = [], set()

        def visit(v):
            if v not in seen:
                seen.add(v)
                for c in v._prev:
                    visit(c)
                topo.append(v)

        visit(self)
        return topo

    def _eval(self, topo):
        for v in topo:
            if v._f is not None:
                v.data = v._f(*[c.data for c in v._prev])
        return self.data

    def backward(self):
        topo = self._order()
        for leaf in [v for v in topo if v._f is None]:
            x, h = leaf.data, 1e-6 * max(1.0, abs(leaf.data))
            leaf.data = x + h
            up = self._eval(topo)
            leaf.data = x - h
            down = self._eval(topo)
            leaf.data = x
            self._eval(topo)
            leaf.grad += (up - down) / (2 * h)
        self.grad = 1.0
