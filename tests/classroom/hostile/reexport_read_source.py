"""vizad's reference source (found beside gradekit) read with open() and exec'd."""

# ruff: noqa
# course: 599w
# engine: none
# expect: hides vizad's reference engines
# expect-bubblewrap: No such file
import os, gradekit

here = os.path.realpath(os.path.dirname(gradekit.__file__))
exec(open(os.path.join(here, os.pardir, "courses", "autodiff.py")).read())
