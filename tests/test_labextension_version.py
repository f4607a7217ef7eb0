"""The lab extension says the package's version (`jupyter labextension list` read 0.1.0 for the
0.2.0 package): its package.json, the built copy JupyterLab reads, and its module federation
entry all carry vizad.__version__."""

from __future__ import annotations

import json
from pathlib import Path

import vizad

ROOT = Path(__file__).resolve().parents[1]


def test_the_lab_extension_carries_the_packages_version():
    source = json.loads((ROOT / "frontend/labextension/package.json").read_text())
    built = json.loads((ROOT / "vizad/labextension/package.json").read_text())
    assert source["version"] == built["version"] == vizad.__version__
    entry = ROOT / "vizad/labextension" / built["jupyterlab"]["_build"]["load"]
    assert f'name:"vizad",version:"{vizad.__version__}"' in entry.read_text()
