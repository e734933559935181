"""Scripted bots for Caylus: ``castle``, ``town`` and ``economy`` (see ``bots``)."""

from agents.scripted.bots import (
    CASTLE,
    ECONOMY,
    STRATEGIES,
    TOWN,
    ScriptedBot,
    Strategy,
    make_scripted,
)

__all__ = ["CASTLE", "ECONOMY", "STRATEGIES", "TOWN", "ScriptedBot", "Strategy", "make_scripted"]
