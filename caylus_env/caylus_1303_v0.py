"""Versioned entry point, PettingZoo style: ``from caylus_env import caylus_1303_v0``.

The counterpart of ``caylus_env.caylus_v0`` for Caylus 1303 (reconstructed rules). The suffix
changes whenever rules, encodings or rewards change behaviour (see the Version History in
``caylus_env.caylus_1303.env``), so code that names ``caylus_1303_v0`` keeps the behaviour it
was written for.
"""

from __future__ import annotations

from caylus_env.caylus_1303.env import env, raw_env

__all__ = ["env", "raw_env"]
