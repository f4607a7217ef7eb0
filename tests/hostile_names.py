"""Names an adversary gives (a student's micrograd labels, a tensor's name, a PyTorch
parameter's name, a needle op's name): each tries to add a node, an edge, an attribute, a
link or a script to a drawing, or to break it. Shared by the Chromium test of pages and the
live widget (tests/browser/test_hostile_names.py) and by the adversarial suite."""

from __future__ import annotations

#: What a script in a name would do if it ran: set this flag on the page's window.
FLAG = "__vizad_pwned"

_RUN = f"self['{FLAG}']=1"  # no "." (PyTorch refuses one in a parameter's name)

#: 50 names: DOT, HTML-like labels, records, HTML, SVG, URLs, escapes, controls.
NAMES = [
    f'<a>; i [label="Next" URL="javascript&#58;{_RUN}"]; <b>',
    f'<a>; i [label="Next" href="javascript:{_RUN}" target="_top"]; <b>',
    f'x"]; evil [label="Next" URL="javascript:{_RUN}"]; y["',
    f'x" URL="javascript:{_RUN}" tooltip="t',
    f'<<B>x</B>> URL="javascript:{_RUN}"',
    f'</B></TD></TR></TABLE>> URL="javascript:{_RUN}" label=<<B>x',
    '<TABLE HREF="javascript:' + _RUN + '"><TR><TD>x</TD></TR></TABLE>',
    '<TD HREF="javascript:' + _RUN + '">x</TD>',
    f"<img src=x onerror={_RUN}>",
    f"<svg onload={_RUN}>",
    f"<script>{_RUN}</script>",
    f'<a xlink:href="javascript:{_RUN}">click</a>',
    f'<a href="javascript:{_RUN}">click</a>',
    f'"><script>{_RUN}</script>',
    f"'><img src=x onerror={_RUN}>",
    f"javascript:{_RUN}",
    f"data:text/html,<script>{_RUN}</script>",
    f"{{x|<f0> y|{_RUN}}}",  # a record label's fields
    f"a|b|<port> c {{ {_RUN} }}",
    "]",
    "[",
    "\n",
    "\t",
    "\r",
    "\r\n",
    "a\nb",
    "a\\nb",
    "\\",
    "\\N",
    "\\G\\L",
    '"',
    "'",
    "x\\",
    "a:b:c",
    "a;b",
    "a -> b",
    "a -- b",
    "subgraph cluster_x { evil }",
    "}; digraph evil {",
    "&lt;script&gt;",
    "&#60;script&#62;",
    f"&#106;avascript&#58;{_RUN}",
    "<![CDATA[x]]>",
    "<!-- x -->",
    "x\x00y",
    "x\u202egnp·exe",
    "<b>bold</b>",
    "{",
    "<",
    ">",
]
assert len(NAMES) == 50 and len(set(NAMES)) == 50


def eager(names):
    """vz.tensor named ``names``: y = Σ sin(x)."""
    import vizad as vz

    xs = [vz.tensor(float(k + 1), name=n) for k, n in enumerate(names)]
    y = vz.sin(xs[0])
    for x in xs[1:]:
        y = y + vz.sin(x)
    return vz.trace_reverse(y)


def micrograd(names):
    """A student's micrograd Values labelled ``names``: L = Σ tanh(v)."""
    import vizad as vz
    from vizad.classroom.courses.micrograd.engine import Value

    vs = [Value(0.1 * (k + 1), label=n) for k, n in enumerate(names)]
    out = vs[0].tanh()
    for v in vs[1:]:
        out = out + v.tanh()
    return vz.trace_reverse(out)


def w599(names):
    """The 599W skeleton's Variables named ``names``: y = x₁·x₁ + x₂·x₁ + …"""
    import numpy as np

    import vizad as vz
    import vizad.classroom.courses.autodiff as ad

    xs = [ad.Variable(name=n) for n in names]
    y = xs[0] * xs[0]
    for x in xs[1:]:
        y = y + x * xs[0]
    feed = {x: np.array([float(k + 1)]) for k, x in enumerate(xs)}
    return vz.trace_reverse(y, xs, feed)


def needle(names):
    """needle ops whose ``name`` (a student's op class) is each of ``names``."""
    import vizad as vz
    import vizad.classroom.courses.needle as ndl
    from vizad.classroom.courses.needle.ops import EWiseAdd

    x = ndl.Tensor([[1.0, 2.0]])
    y = x
    for k, n in enumerate(names):
        op = type(f"Op{k}", (EWiseAdd,), {"name": n})
        y = op()(y, x)
    return vz.trace_reverse(ndl.summation(y))


def torch_parameters(names):
    """A PyTorch module whose parameters are named ``names`` (register_parameter takes any
    name without a "."), imported with vz.from_torch."""
    import torch

    import vizad as vz

    module = torch.nn.Module()
    for k, n in enumerate(names):
        module.register_parameter(
            n, torch.nn.Parameter(torch.tensor(float(k + 1), dtype=torch.float64))
        )

    def forward(x):
        out = x
        for p in module.parameters():
            out = out + torch.sin(p) * x
        return out

    module.forward = forward
    imported = vz.from_torch(module, torch.tensor(0.5, dtype=torch.float64))
    return vz.trace_reverse(imported.output, imported.inputs, imported.feed)


#: Where names come from → how a trace is made with them.
SOURCES = {
    "eager": eager,
    "micrograd": micrograd,
    "599W": w599,
    "needle": needle,
    "pytorch": torch_parameters,
}


def by_source() -> dict[str, list[str]]:
    """The 50 names dealt to the five sources, ten each (PyTorch refuses a "." in a
    parameter's name: those names go elsewhere; none of NAMES has one)."""
    return {source: NAMES[10 * k : 10 * k + 10] for k, source in enumerate(SOURCES)}
