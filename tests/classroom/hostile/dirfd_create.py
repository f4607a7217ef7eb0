"""A file created relative to a directory descriptor of the grader's folder (os.open's audit
event carries no dir_fd)."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: refuses to open the folder|Permission denied|read only its copy
# expect-bubblewrap: No such file
import os

d = os.open(os.path.dirname(OUTSIDE), os.O_RDONLY | os.O_DIRECTORY)
fd = os.open("planted.py", os.O_WRONLY | os.O_CREAT, dir_fd=d)
os.write(fd, b"x")
