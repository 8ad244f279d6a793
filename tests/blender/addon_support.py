"""Shared by the add-on tests (tests/blender/test_addon_*.py): the add-on package importable as
``addon`` from the repository root, without installing it."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
