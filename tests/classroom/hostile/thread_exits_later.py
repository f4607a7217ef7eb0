"""A thread that ends the process with os._exit(0) after 0.3 s, while cases run."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: ended the process|took more than|were used up|times
import os, threading, time


def later():
    time.sleep(0.3)
    os._exit(0)


_grad = gradients


def gradients(output_node, node_list):
    threading.Thread(target=later, daemon=True).start()
    time.sleep(1.0)
    return _grad(output_node, node_list)
