"""vizad's reference loaded from its file by importlib."""

# ruff: noqa
# course: 599w
# engine: none
# expect: hides vizad's reference engines
import importlib.util, os, vizad

path = os.path.join(os.path.dirname(vizad.__file__), "classroom", "courses", "autodiff.py")
spec = importlib.util.spec_from_file_location("ref", path)
ref = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ref)
globals().update({k: v for k, v in vars(ref).items() if not k.startswith("__")})
