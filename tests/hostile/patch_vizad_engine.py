"""vizad's own gradients patched (vizad's reference engine is not in this process)."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: sign flipped
import vizad

vizad.gradients = lambda *a, **k: []
