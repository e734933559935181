"""The generic kernel templates reach a game only through declared names.

Every module of templates compiled per game (``caylus_env.core.vector``'s batched and learner
loops, ``caylus_env.core.aec``'s step, ``caylus_env.core.checks``' engine checks,
``caylus_env.core.mcts``' search, ``caylus_env.core.scripted``'s choice, ``agents.puct``'s
search) reads a game's kernels, sizes and parts through the names declared in
``caylus_env.core.bindings``;
``caylus_env.core.specialize`` binds them per game and refuses a template that would read a
declaration left unbound.
"""

from __future__ import annotations

import builtins
import dis
import inspect

import numpy as np
import pytest

from agents import puct
from caylus_env.core import aec, bindings, checks, mcts, scripted, vector
from caylus_env.core.bindings import NUM_ACTIONS, K, UnboundError
from caylus_env.core.contract import KERNELS
from caylus_env.core.registry import GAME_NAMES
from caylus_env.core.specialize import specialize


def _current_seat(s):
    """A template of this module: it calls the game's ``current_player``."""
    return K.current_player(s)


def _globals_read(f) -> set[str]:
    return {i.argval for i in dis.get_instructions(f) if i.opname == "LOAD_GLOBAL"}


def test_a_template_calling_an_unbound_declaration_is_refused_naming_it():
    with pytest.raises(
        ValueError, match=r"template _current_seat calls K of caylus_env\.core\.bindings"
    ):
        specialize((_current_seat,), "unbound_test", {})


def test_a_declaration_called_from_python_says_what_it_is():
    with pytest.raises(UnboundError, match=r"bindings\.K\.apply is a declaration"):
        K.apply(np.zeros(1), 0)


#: Every module of templates and its templates (those `specialize` compiles per game).
TEMPLATE_MODULES = {
    vector: vector.TEMPLATES,
    aec: (aec.step_observe,),
    checks: (checks._fail, checks._determinize_hides_nothing, checks.random_checks),
    mcts: (mcts.margin_returns, mcts.scoring_values, mcts.rollout, mcts.expand, mcts.prior_pick),
    puct: puct._TEMPLATES,
    scripted: (scripted.choose, scripted.choose_scripted),
}


def test_a_declared_constant_read_from_python_says_what_it_is():
    with pytest.raises(UnboundError, match=r"bindings\.NUM_ACTIONS is a declaration"):
        np.empty(NUM_ACTIONS)


def test_the_declared_kernels_are_the_contracts():
    declared = [name for name, _ in inspect.getmembers(K, inspect.isfunction)]
    assert declared and set(declared) <= set(KERNELS)
    assert all(hasattr(bindings, name) for name in bindings.NAMES)


@pytest.mark.parametrize("module", TEMPLATE_MODULES, ids=lambda m: m.__name__)
def test_every_name_a_template_reads_is_defined_and_the_games_are_declared(module):
    defined = vars(module)
    for f in TEMPLATE_MODULES[module]:
        undefined = sorted(
            n for n in _globals_read(f) if n not in defined and n not in vars(builtins)
        )
        assert not undefined, f"{f.__name__} reads undefined globals {undefined}"
    reached = {n for f in TEMPLATE_MODULES[module] for n in _globals_read(f)}
    reached &= set(bindings.NAMES)
    assert reached
    assert all(defined[n] is getattr(bindings, n) for n in reached), sorted(reached)


def test_every_declared_name_is_read_by_a_template():
    reached = {
        n for templates in TEMPLATE_MODULES.values() for f in templates for n in _globals_read(f)
    }
    assert set(bindings.NAMES) <= reached


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_game_gets_every_template(game):
    compiled = vector.kernels(game)
    assert sorted(vars(compiled)) == sorted(f.__name__ for f in vector.TEMPLATES)
