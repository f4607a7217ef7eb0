"""Every name claimed missing, to have the cases skipped (0/0 = passed?), with a sign bug."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: cases on autodiff: 0/12
import gradekit.case as c


def _never(self, name):
    raise c.MissingName(f"{name} skipped")


c.Api.__getattr__ = _never  # every case "missing": not implemented, never skipped
