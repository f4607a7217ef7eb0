"""Values whose __float__ loops, in a list whose __len__ lies."""


# ruff: noqa
# course: 599w
# engine: honest
# expect: took more than|were used up|unreadable
class Liar:
    def __float__(self):
        while True:
            pass


_run = Executor.run


def run(self, feed_dict):
    return [Liar() for _ in _run(self, feed_dict)]


Executor.run = run
