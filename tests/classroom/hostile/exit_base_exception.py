"""A BaseException subclass at import."""


# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: importing the submission raised Sneaky
class Sneaky(BaseException):
    pass


raise Sneaky("not an Exception")
