"""vizad's reference loaded from its file (found beside gradekit) by importlib."""

# ruff: noqa
# course: 599w
# engine: none
# expect: hides vizad's reference engines
# expect-bubblewrap: No such file
import importlib.util, os, gradekit

here = os.path.realpath(os.path.dirname(gradekit.__file__))
path = os.path.join(here, os.pardir, "courses", "autodiff.py")
spec = importlib.util.spec_from_file_location("ref", path)
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)
globals().update({k: v for k, v in vars(ref).items() if not k.startswith("__")})
