"""Unbounded recursion with the recursion limit raised."""

# ruff: noqa
# course: 599w micrograd needle
# engine: none
# expect: killed by SIGSEGV|RecursionError|MemoryError|took more than
import sys

sys.setrecursionlimit(10**8)


def down(n):
    return down(n + 1) + 1


down(0)
