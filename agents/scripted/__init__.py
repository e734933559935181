"""Scripted bots for Caylus: ``castle``, ``town`` and ``economy`` (see ``bots``)."""

from agents.scripted.bots import (
    BOTS,
    CASTLE,
    ECONOMY,
    STRATEGIES,
    TOWN,
    CastleBot,
    EconomyBot,
    ScriptedBot,
    Strategy,
    TownBot,
    make_scripted,
)

__all__ = [
    "BOTS",
    "CASTLE",
    "ECONOMY",
    "STRATEGIES",
    "TOWN",
    "CastleBot",
    "EconomyBot",
    "ScriptedBot",
    "Strategy",
    "TownBot",
    "make_scripted",
]
