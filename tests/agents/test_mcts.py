"""The one MCTS (``caylus_env.core.mcts``): every game's ``mcts`` agent is the core's search with
a declaration of the game's parts, and a declaration or a setting the search cannot honour is
refused with one line naming it."""

from __future__ import annotations

import pytest

from agents.registry import make_agent
from caylus_env.core import mcts
from caylus_env.core.registry import GAME_NAMES, game_spec

#: What a game's agent class may hold besides what every class has: its declaration.
DECLARATION = {
    "GAME",
    "__module__",
    "__qualname__",
    "__doc__",
    "__firstlineno__",
    "__static_attributes__",
}


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_games_mcts_is_the_core_search_with_a_declaration_only(game):
    agent = make_agent("mcts:4", game)
    cls = type(agent)
    assert isinstance(agent, mcts.MCTSAgent) and cls is not mcts.MCTSAgent
    assert cls.__module__ == f"{game_spec(game).package}.bots.mcts"
    assert set(vars(cls)) - DECLARATION == set(), f"{cls.__qualname__} holds code of its own"
    assert isinstance(cls.GAME, mcts.MCTSGame) and cls.GAME.game == game


def _declare(**changes):
    fields = {"game": "g", "strategies": ("a", "b"), "scoring": mcts, **changes}
    return mcts.MCTSGame(**fields)


@pytest.mark.parametrize(
    ("changes", "needle"),
    [
        ({"scoring": None}, "give scoring, or both strategy_values and rollout_choice"),
        ({"rollouts": ("a", "light")}, "rollout 'light' is no strategy, 'random' or policy"),
        ({"defaults": {"rollout": "c"}}, "default rollout 'c'; allowed: a, b, random"),
        ({"options": ("c", "depht")}, "unknown option 'depht'; allowed: c, eps"),
        ({"ranges": {"tau": (0, 1)}}, "unknown option 'tau'; allowed: c, eps"),
        ({"defaults": {"widening": 1}}, "unknown setting 'widening'; allowed: rollout, sims"),
        ({"redraw": True, "ordered_expansion": True}, "need kept positions, which redraw"),
        ({"redraw": True, "defaults": {"reuse": True}}, "need kept positions, which redraw"),
    ],
)
def test_a_declaration_the_search_cannot_honour_is_refused_naming_it(changes, needle):
    with pytest.raises(ValueError) as err:
        _declare(**changes)
    message = str(err.value)
    assert message.startswith("MCTSGame 'g': ") and needle in message and "\n" not in message


def test_a_declaration_lists_its_strategies_and_random_as_rollouts_by_default():
    game = _declare(policies={"light": 2}, rollouts=("light", "a", "random"))
    assert _declare().rollouts == ("a", "b", "random")
    assert (game.policy("a"), game.policy("b"), game.policy("light")) == (0, 1, 2)
    assert game.policy("random") == mcts.RANDOM


@pytest.mark.parametrize(
    ("settings", "needle"),
    [
        ({"widening": 2.0}, "mcts: unknown setting 'widening'; allowed: sims, c, eps"),
        ({"rollout": "pirate"}, "unknown rollout 'pirate'; allowed: "),
        ({"prior": "pirate"}, "unknown prior 'pirate'; allowed: "),
        ({"sims": 0}, f"mcts: sims=0; allowed: 1 to {mcts.MAX_SIMS}"),
    ],
)
@pytest.mark.parametrize("game", GAME_NAMES)
def test_a_setting_the_search_does_not_know_is_refused_naming_what_is_allowed(
    game, settings, needle
):
    cls = type(make_agent("mcts:1", game))
    with pytest.raises(ValueError, match="^" + needle.replace("(", r"\(")):
        cls(**settings)


def test_reuse_is_refused_where_hidden_information_is_redrawn_per_simulation():
    redrawing = [g for g in GAME_NAMES if type(make_agent("mcts:1", g)).GAME.redraw]
    assert redrawing, "no game redraws: the check would pass vacuously"
    for game in redrawing:
        with pytest.raises(ValueError, match="reuse keeps positions"):
            type(make_agent("mcts:1", game))(reuse=True)
