"""A module __getattr__ that loops (no gradients defined)."""


# ruff: noqa
# course: 599w
# engine: none
# expect: took more than|were used up
def __getattr__(name):
    while True:
        pass
