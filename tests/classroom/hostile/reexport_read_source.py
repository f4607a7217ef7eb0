"""vizad's reference source read with open() and exec'd."""

# ruff: noqa
# course: 599w
# engine: none
# expect: hides vizad's reference engines
import os, vizad

path = os.path.join(os.path.dirname(vizad.__file__), "classroom", "courses", "autodiff.py")
exec(open(path).read())
