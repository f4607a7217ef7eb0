"""Small student engines for tests/test_diagnose.py: correct ones, and copies with one bug
seeded each (made by replacing one line of the source)."""
