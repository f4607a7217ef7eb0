"""A micrograd Value whose backward() is complex-step differentiation over the whole graph
(exact to rounding, so no tolerance tells it: the grader must score it 0)."""

# ruff: noqa
import cmath


class Value:
    def __init__(self, data, _children=(), _f=None):
        self.data, self.grad, self._prev, self._f = data, 0.0, tuple(_children), _f

    def _make(self, others, f):
        others = [o if isinstance(o, Value) else Value(o) for o in others]
        return Value(f(*[o.data for o in [self, *others]]), (self, *others), f)

    def __add__(self, o):
        return self._make([o], lambda a, b: a + b)

    def __mul__(self, o):
        return self._make([o], lambda a, b: a * b)

    def __pow__(self, k):
        return self._make([], lambda a: a**k)

    def relu(self):
        return self._make([], lambda a: a if a.real > 0 else 0.0 * a)

    def tanh(self):
        return self._make([], cmath.tanh)

    def exp(self):
        return self._make([], cmath.exp)

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

    def backward(self):
        topo, seen = [], set()

        def visit(v):
            if v not in seen:
                seen.add(v)
                for c in v._prev:
                    visit(c)
                topo.append(v)

        visit(self)

        def run():
            for v in topo:
                if v._f is not None:
                    v.data = v._f(*[c.data for c in v._prev])
            return self.data

        for leaf in [v for v in topo if v._f is None]:
            x = leaf.data
            leaf.data = x + 1e-20j
            leaf.grad += run().imag / 1e-20
            leaf.data = x
        run()
        for v in topo:
            v.data = v.data.real if isinstance(v.data, complex) else v.data
        self.grad = 1.0
