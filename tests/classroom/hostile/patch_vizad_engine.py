"""vizad's own gradients patched (vizad's reference engine is not in this process)."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: cases on autodiff: 7/12
import vizad

vizad.gradients = lambda *a, **k: []
