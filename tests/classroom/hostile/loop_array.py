"""gradients() returns values whose __array__ loops."""


# ruff: noqa
# course: 599w
# engine: honest
# expect: took more than|were used up
class Forever:
    def __array__(self, *args, **kwargs):
        while True:
            pass


_run = Executor.run


def run(self, feed_dict):
    return [Forever() for _ in _run(self, feed_dict)]


Executor.run = run
