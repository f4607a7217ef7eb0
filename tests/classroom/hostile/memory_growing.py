"""A list grown until memory runs out, at import."""

# ruff: noqa
# course: 599w
# engine: none
# expect: MemoryError|killed|took more than
hog = []
while True:
    hog.append(bytearray(10**7))
