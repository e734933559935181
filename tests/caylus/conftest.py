"""Shared set-up of the engine's scenario tests.

Every scenario test builds its position with the helpers of ``builders.py``
(``import builders as B``: ``B.position``, ``B.set_player``, ``B.start``, ...), so a
test module's header is that one import. This conftest makes the helper module
importable whatever pytest's import mode (``prepend``, ``append`` or ``importlib``,
which does not put test folders on ``sys.path``).
"""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
