"""The blank exercise notebooks are for students: nbval runs their solved copies in
solutions/, and tests/classroom/test_exercises.py checks that the blanks' checks fail."""

from pathlib import Path


def pytest_ignore_collect(collection_path: Path, config):
    if collection_path.suffix == ".ipynb" and collection_path.parent.name == "exercises":
        return True
    return None
