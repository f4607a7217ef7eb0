"""vizad's own gradients patched (vizad's reference engine is not in this process)."""

# ruff: noqa
# course: 599w micrograd needle
# engine: sign
# expect: No module named 'vizad'
import vizad

vizad.gradients = lambda *a, **k: []
