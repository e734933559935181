"""What the generic kernel templates call of a game: the names `caylus_env.core.specialize`
binds per game.

A template (a plain function compiled per game: the batched environment's and the learner
view's loops in ``caylus_env.core.vector``, the AEC step of ``caylus_env.core.aec``, the engine
checks of ``caylus_env.core.checks``, the one MCTS of ``caylus_env.core.mcts``, the scripted
choice of ``caylus_env.core.scripted``, the PUCT search of ``agents.puct``) reaches the game it
runs through a few global names: ``K.apply(s, a)``, ``encode(s, seat, out)``,
``np.empty(NUM_ACTIONS, ...)``. The templates import those names from here, so that a reader
(and an editor, a linter or a call-graph tool) following ``K.apply`` lands on a declaration
that says what it is and where each game's version comes from, instead of on a name that is
defined nowhere (which a linter had to be told to allow). `specialize` compiles a copy of the
templates per game in which every name of `NAMES` is replaced by the game's own (its
``bindings``), and refuses to compile a template that reads one of them unbound: a declaration
never reaches numba. Called (or read as a number) from Python, a declaration raises
`UnboundError`.

The names come in three groups: the game's kernels and sizes (`K`, `encode`,
`choose_scripted`, `NUM_ACTIONS`, `OBS_SIZE`, `STATE_SIZE`, `STATE_DTYPE`), the network a
search evaluates (`forward`), and the parts a game declares for the one MCTS
(``caylus_env.core.mcts.MCTSGame``: `SCORING`, `SCORED`, `VALUES`, `CHOOSE`, `EVALUATE`;
`SCORING` is also what the scripted choice scores with).
"""

from __future__ import annotations

from typing import Any

#: The names a template may read of a game, each bound per game by `specialize`.
NAMES = (
    "K",
    "encode",
    "choose_scripted",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "STATE_SIZE",
    "STATE_DTYPE",
    "forward",
    "SCORING",
    "SCORED",
    "VALUES",
    "CHOOSE",
    "EVALUATE",
)


class UnboundError(RuntimeError):
    """A declaration of this module was called: only the game's own kernel, bound by
    `specialize`, can run."""


def _unbound(name: str) -> UnboundError:
    return UnboundError(
        f"caylus_env.core.bindings.{name} is a declaration: specialize() binds it to the "
        "game's own kernel in each compiled copy of a template"
    )


class Constant:
    """A declared constant of a game (a size, a dtype, a flag): a template reads it as a
    compile-time constant of the game's copy. Read from Python (as a number, a truth value
    or a dtype) it raises `UnboundError`, so a template run uncompiled fails naming it."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<declared {self.name}: bound per game by specialize>"

    def _refuse(self, *_: Any) -> Any:
        raise _unbound(self.name)

    __index__ = __int__ = __float__ = __bool__ = _refuse

    @property
    def dtype(self) -> Any:
        """NumPy reads a dtype-like object's ``dtype``: a declared dtype refuses."""
        raise _unbound(self.name)


class K:
    """The game's compiled kernel surface, ``engine.kernels`` (`GameSpec.engine`): the
    kernels of ``caylus_env.core.contract.KERNELS`` that the templates call, on the flat
    state ``s`` (the contract's module docstring says what each one does)."""

    @staticmethod
    def setup(s: Any, options: Any, seed: Any) -> None:
        """Write a fresh game with kernel ``options`` (``num_players`` first) and setup
        ``seed`` into the zeroed ``s``; ``advance`` then reaches its first decision."""
        raise _unbound("K.setup")

    @staticmethod
    def advance(s: Any, out: Any) -> int:
        """Run every step that needs no choice; write the sorted legal ids of the next
        decision into ``out`` and return their count (``0`` once nothing is asked)."""
        raise _unbound("K.advance")

    @staticmethod
    def apply(s: Any, action: Any) -> None:
        """Play the legal ``action`` of the decision ``advance`` reached (unchecked)."""
        raise _unbound("K.apply")

    @staticmethod
    def current_player(s: Any) -> int:
        """The seat to act, ``-1`` when nothing is asked."""
        raise _unbound("K.current_player")

    @staticmethod
    def is_terminal(s: Any) -> bool:
        """Whether the game ended by its rules (not cut off by a decision cap)."""
        raise _unbound("K.is_terminal")

    @staticmethod
    def scores(s: Any, out: Any) -> int:
        """Each seat's score as if the game ended now into ``out``; returns the player
        count."""
        raise _unbound("K.scores")

    @staticmethod
    def tie_breaks(s: Any, out: Any) -> int:
        """The rules' tie-break of each seat into ``out`` (0 where ties stand)."""
        raise _unbound("K.tie_breaks")

    @staticmethod
    def returns(s: Any, ret: Any) -> None:
        """The zero-sum rank rewards of a finished game into ``ret`` (+1 first .. -1 last,
        ties averaged)."""
        raise _unbound("K.returns")

    @staticmethod
    def step(s: Any, action: Any, out: Any) -> int:
        """Play ``action`` if it is legal, then the forced steps (``advance``): the next
        decision's legal count, its ids in ``out``; negative (the state untouched) for an
        illegal ``action``."""
        raise _unbound("K.step")

    @staticmethod
    def legal_actions(s: Any, out: Any) -> int:
        """The sorted legal ids of the decision ``s`` stands at into ``out``; their count."""
        raise _unbound("K.legal_actions")

    @staticmethod
    def is_truncated(s: Any) -> bool:
        """Whether the game was cut off by its decision cap."""
        raise _unbound("K.is_truncated")

    @staticmethod
    def clock(s: Any) -> int:
        """The game's clock (its rounds and phases as one number): it never goes back."""
        raise _unbound("K.clock")

    @staticmethod
    def check_invariants(s: Any) -> int:
        """0 when every invariant of the state holds, else the code of the first broken."""
        raise _unbound("K.check_invariants")

    @staticmethod
    def accepted_actions(s: Any, out: Any) -> int:
        """Every id ``step`` accepts in ``s`` (tried on copies) into ``out``; their count."""
        raise _unbound("K.accepted_actions")

    @staticmethod
    def determinize(s: Any, seat: Any, seed: Any) -> None:
        """Redraw in place what ``seat`` cannot see, consistently with what it sees, from
        ``seed`` (in [0, 2**63))."""
        raise _unbound("K.determinize")


def encode(s: Any, seat: Any, out: Any) -> None:
    """The game's observer, ``observation.encode_into``: the observation of ``seat`` (``-1``:
    the global view, absolute seats) in state ``s`` into the float32 row ``out``."""
    raise _unbound("encode")


def choose_scripted(strategy: Any, s: Any, legal: Any, n: Any, noise: Any) -> int:
    """The game's scripted bots as one kernel, ``bots.choose_scripted``: the index into
    ``legal[:n]`` that scripted bot ``strategy`` (a row of its ``bots.BOTS``'s ``scripted``)
    plays in ``s``, ``noise[:n]`` holding uniform numbers for its ties."""
    raise _unbound("choose_scripted")


NUM_ACTIONS = Constant("NUM_ACTIONS")
"""The game's number of action ids (``engine.NUM_ACTIONS``): the length of a legal-ids
buffer and of a mask."""

OBS_SIZE = Constant("OBS_SIZE")
"""The length of the game's observation vector (its observer's ``OBS_SIZE``)."""

STATE_SIZE = Constant("STATE_SIZE")
"""The length of the game's flat state (``engine.layout.STATE_SIZE``)."""

STATE_DTYPE = Constant("STATE_DTYPE")
"""The dtype of the flat state's entries (``engine.layout.STATE_DTYPE``)."""


def forward(x: Any, params: Any, logits: Any, want_logits: Any) -> float:
    """The network a search evaluates (``agents.puct``; bound per game and network kind to
    the checkpoint's compiled forward pass, ``PolicyNet.search_network``): the value of the
    observation ``x`` under ``params``, its action logits into ``logits`` when
    ``want_logits``."""
    raise _unbound("forward")


class SCORING:
    """The game's scripted scoring (``MCTSGame.scoring``, `caylus_env.core.scripted`): its
    scripted bots' one-ply choice and values, which the one MCTS's rollouts and default
    strategy values call (``choose`` itself the core's, `caylus_env.core.scripted.choose`,
    compiled over the game's ``score_actions`` and ``EPS``)."""

    EPS = Constant("SCORING.EPS")
    """How much a later action must outscore the best so far for ``choose`` to prefer it."""

    @staticmethod
    def choose(s: Any, legal: Any, n: Any, strategy: Any) -> int:
        """The index into ``legal[:n]`` that scripted strategy row ``strategy`` plays."""
        raise _unbound("SCORING.choose")

    @staticmethod
    def score_actions(s: Any, legal: Any, n: Any, strategy: Any, out: Any) -> None:
        """Strategy row ``strategy``'s value of each of ``legal[:n]`` into ``out``."""
        raise _unbound("SCORING.score_actions")


SCORED = Constant("SCORED")
"""Whether the one MCTS's rollouts play the game's scripted scoring (`SCORING.choose`), True
for a game that declares no ``rollout_choice``: a constant, so numba compiles only the
branch the game takes."""


def VALUES(strategy: Any, s: Any, legal: Any, n: Any, depth: Any, values: Any) -> None:
    """The one MCTS's strategy values (``MCTSGame.strategy_values``, or the default
    ``caylus_env.core.mcts.scoring_values``): strategy row ``strategy``'s values of
    ``legal[:n]`` into ``values``, for priors and opponent models."""
    raise _unbound("VALUES")


def CHOOSE(policy: Any, s: Any, legal: Any, n: Any, depth: Any) -> int:
    """A rollout bot's move (``MCTSGame.rollout_choice``): the index into ``legal[:n]`` that
    rollout policy ``policy`` (a strategy row or a code of the game's ``policies``) plays."""
    raise _unbound("CHOOSE")


def EVALUATE(s: Any, margin: Any, scale: Any, strategy: Any, ret: Any) -> None:
    """The per-seat returns of the position a rollout stops at into ``ret``
    (``MCTSGame.evaluate``, or the default ``caylus_env.core.mcts.margin_returns``)."""
    raise _unbound("EVALUATE")


def game_bindings(spec: Any) -> dict[str, Any]:
    """The bindings of a game's kernels and sizes (`K`, `encode`, `NUM_ACTIONS`, `OBS_SIZE`,
    `STATE_SIZE`, `STATE_DTYPE`) from its ``GameSpec``: what every template module passes to
    `specialize`, with the names of its own (`choose_scripted`, `forward`, the MCTS parts),
    so that each name is bound to the same thing everywhere. A binding a template does not
    read costs nothing (numba resolves only the globals a function reads)."""
    engine, observer = spec.engine(), spec.observation()
    return {
        "K": engine.kernels,
        "encode": observer.encode_into,
        "NUM_ACTIONS": engine.NUM_ACTIONS,
        "OBS_SIZE": observer.OBS_SIZE,
        "STATE_SIZE": engine.layout.STATE_SIZE,
        "STATE_DTYPE": engine.layout.STATE_DTYPE,
    }


__all__ = [
    "CHOOSE",
    "EVALUATE",
    "NAMES",
    "NUM_ACTIONS",
    "OBS_SIZE",
    "SCORED",
    "SCORING",
    "STATE_DTYPE",
    "STATE_SIZE",
    "VALUES",
    "Constant",
    "K",
    "UnboundError",
    "choose_scripted",
    "encode",
    "forward",
    "game_bindings",
]
