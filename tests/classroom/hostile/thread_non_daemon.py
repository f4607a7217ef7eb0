"""A non-daemon thread spinning forever, and a sign bug."""

# ruff: noqa
# course: 599w
# engine: sign
# expect: cases on autodiff: 7/12
import threading

threading.Thread(target=lambda: [None for _ in iter(int, 1)]).start()
