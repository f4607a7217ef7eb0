"""sqlite3.connect creating a database beside the grader's file."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: change only its copy|unable to open|No module named
# expect-bubblewrap: unable to open|No module named
import sqlite3

sqlite3.connect(OUTSIDE + ".db").execute("create table t (x)")
