"""Opens a network connection."""

# ruff: noqa
# course: 599w
# engine: honest
# expect: refuses socket
import socket

socket.create_connection(("127.0.0.1", 9))
