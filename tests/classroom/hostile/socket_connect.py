"""Opens a network connection."""

# ruff: noqa
# course: 599w micrograd needle
# engine: honest
# expect: refuses socket
# expect-bubblewrap: Connection refused|Network is unreachable
import socket

socket.create_connection(("127.0.0.1", 9))
