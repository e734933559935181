"""The game contract: what every game of the platform provides, and what it gets for it.

A game is one folder, ``caylus_env/<name>/``, registered by one line in
``caylus_env.core.registry.GAME_PACKAGES``. Its ``__init__.py`` holds its `GameSpec` (the
facts below, cheap to import: no numba, no engine) as ``GAME``; the rest of the folder holds
the game's own code, in modules of fixed names that the shared layers import on first use
(``GameSpec.module(part)`` imports each):

- ``engine``: the rules: ``Game`` (a subclass of `caylus_env.core.game.Game`, the one handle),
  ``GameConfig`` (a subclass of `caylus_env.core.config.GameConfig`), ``kernels`` (the compiled
  surface below), ``layout`` (``STATE_SIZE``, ``STATE_DTYPE``, ``FIELDS``, ``PLAYER_FIELDS``,
  the decision stack's ``STACK``, ``STACK_SIZE``, ``STACK_ENTRY``, ``KIND_OFFSET``, the clock's
  field ``CLOCK``, and ``DECISIONS`` / ``MAX_DECISIONS`` where the game counts and caps them),
  ``DECISION_NAMES``, ``INVARIANT_MESSAGES``, the action codec (``NUM_ACTIONS``,
  ``ACTION_NAMES``, ``BLOCKS``, ``ACTION_SPACE_VERSION``, ``action_to_string``,
  ``string_to_action``), ``state_to_dict`` / ``dict_to_state``
- ``observation``: the observer: ``PIECES``, ``SEAT_PIECES``, ``OBS_SIZE``, ``BOUNDS``,
  ``OBSERVATION_VERSION``, ``observation_pieces`` (all from one
  `caylus_env.core.observation.ObservationLayout`) and the compiled ``encode_into(state, seat,
  out)`` (``seat = -1``: absolute seats)
- ``rendering``: ``render_text(game)``: the table as text, without hidden information;
  ``compact_text(game)``: a few lines of it for golden playthroughs
- ``viewer``: ``Drawing`` (a subclass of `caylus_env.core.viewer.Drawing`: the slots of its
  picture and how to draw a position) and ``position_svg(state_dict)``: the game's drawing for
  the shared replay page (`caylus_env.core.viewer`); ``board_targets(state_dict, legal)``:
  ``{action id: slot}`` for the legal actions that have a place on that drawing, so that a
  person plays by clicking the board (``caylus serve``, `caylus_env.core.viewer.targets`);
  ``action_words(state_dict, action)``: what any action id does in that position, its cost and
  its effect, in the game's words and from its own tables (one line of at most
  `ACTION_WORDS_LIMIT` characters, no engine name in it), how ``caylus serve`` lists a
  decision's actions
- ``bots``: ``BOTS``: the game's agents by spec head (`caylus_env.core.contract.Bot`), and
  ``choose_scripted(strategy, state, legal, n, noise)``: its scripted bots as one compiled
  kernel (training opponents in the batched env)
- ``env``: ``raw_env`` / ``env()``: a thin declaration on `caylus_env.core.env.GameEnv` whose
  module docstring is the env's page
- ``positions``: the position builder, for puzzles, endgames and scenario tests:
  ``build(num_players, **description)`` (the validated ``Game`` of a position described by who
  holds what, supplies filled from the component totals), ``build_dict`` (its state dict),
  ``position(num_players, **options)`` (a state dict to edit, with the game's helpers that keep
  it consistent), ``start(d)`` (the validated ``Game``), ``play(game, *names)``,
  ``legal_names(game)`` (`caylus_env.core.positions`), and ``describe(position)``, the
  builder's inverse (the description of any position, mid-step included:
  ``build_dict(n, **describe(d)) == d``)

The compiled kernel surface (``engine.kernels``), on the flat state ``s`` (``layout.STATE_SIZE``
entries of ``layout.STATE_DTYPE``) and ``options`` (an ``int64`` array, ``num_players`` first,
as ``GameConfig.kernel_options()`` gives it), every function ``@njit(cache=True)``:

- ``setup(s, options, seed)``: write a fresh game into ``s``; ``advance`` then reaches its
  first decision;
- ``advance(s, out) -> n``: run every step that needs no choice, write the sorted legal ids
  of the next decision into ``out``; ``0`` once nothing is asked;
- ``next_decision(s, out) -> n`` and ``answer(s, action)``: ``advance`` in two parts, for
  tools that must see every decision: the steps that need no choice up to the next pending
  decision, *forced or not* (its legal ids in ``out``; ``1`` for a decision the engine
  answers by itself), and that answer (``advance`` is these two in a loop, `Game.legal_actions_at`
  reads a position's first decision with them);
- ``legal_actions(s, out) -> n``, ``legal_mask(s, mask) -> n`` (``int8``);
- ``step(s, action, out) -> n`` (checked: ``-1`` and nothing changed for an illegal action)
  and ``apply(s, action)`` (unchecked; ``advance`` after it);
- ``current_player(s)`` (``-1`` when nothing is asked), ``is_terminal(s)`` (ended by the
  rules), ``is_truncated(s)`` (cut off by a decision cap; always False for a game without
  one);
- ``scores(s, out) -> n``: each seat's score as if the game ended now (the rulebook's word
  is ``GameSpec.score_word``); ``tie_breaks(s, out) -> n``: the rules' tie-break per seat (0
  for a game whose ties stand);
- ``returns(s, ret)``: the zero-sum rank rewards of a finished game (+1 first .. -1 last,
  ties averaged);
- ``clock(s)``: the round counter (the rulebook's word is ``GameSpec.clock_word``);
- ``check_invariants(s)``: 0 for a consistent state, else the code of the first broken
  invariant (``engine.INVARIANT_MESSAGES[code]`` says it in words); ``accepted_actions(s,
  out) -> n``: every id ``step`` accepts on a copy, in increasing order (-1 if a rejected
  action changed its copy), to compare with ``legal_actions``;
- ``determinize(s, seat, seed)``: replace, in place, what ``seat`` cannot see (hidden
  information, and the state of any generator that decides later chance) by a draw
  consistent with what it sees, depending only on what it sees and on ``seed`` (an int in
  ``[0, 2**63)``): ``seat``'s observation, the legal actions and the invariants are
  unchanged. A search (``agents.puct``) determinizes its root with it, so no hidden
  information reaches the search; a game with nothing hidden leaves ``s`` as it is
  (Caylus), Puerto Rico redraws its face-down plantations, Caylus 1303 with hidden prestige
  gives every opponent ``seat``'s own prestige.

An engine may also define ``ADDED_CHOICES`` (a tuple of `AddedChoice`, empty when left out):
the decisions a rules fix turned from the engine's own answer into a player's choice, so that
records written before the fix still replay (`caylus_env.core.record.replay`).

An engine builds on the few core modules that are NumPy and numba only: its action space on
`caylus_env.core.actions.ActionSpace`, its state layout on `caylus_env.core.layout.FieldTable`,
its options on `caylus_env.core.config.GameConfig`, its handle on `caylus_env.core.game.Game`.

The core provides, once for all games: the handle base (`caylus_env.core.game`: one
``IllegalActionError``, one ``InvalidStateError``), the options base
(`caylus_env.core.config`), one record type with one reader and verifier
(`caylus_env.core.record`), the observation layout (`caylus_env.core.observation`), the AEC
environment base (`caylus_env.core.env`), the compiled batched environment with its Gymnasium
and SB3 adapters (`caylus_env.core.vector`, `caylus_env.core.sb3`), the kernel cache
(`caylus_env.core._cache`) and the specialization of generic kernels per game
(`caylus_env.core.specialize`), golden playthroughs (`caylus_env.core.playthrough`), the
replay page shell (`caylus_env.core.viewer`) and the benchmark harness
(`caylus_env.core.benchmark`); above the core, the tools: one agent registry (`agents`), the
tournament harness, datasets, training and the command line, none of which names a game.

`caylus_env.core.checks.check_game(spec)` checks that a registered game provides every piece
of the contract; the conformance suite (``tests/conformance/``) runs it, and every shared test,
for every game of the registry.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from os import PathLike
from types import ModuleType
from typing import Any

#: The modules a game folder holds (``GameSpec.module``), in the order of the list above.
PARTS = ("engine", "observation", "rendering", "viewer", "bots", "env", "positions")

#: Names each module must define (``caylus_env.core.checks.check_game``).
REQUIRED: Mapping[str, tuple[str, ...]] = {
    "engine": (
        "Game",
        "GameConfig",
        "kernels",
        "layout",
        "DECISION_NAMES",
        "NUM_ACTIONS",
        "ACTION_NAMES",
        "BLOCKS",
        "ACTION_SPACE_VERSION",
        "action_to_string",
        "string_to_action",
        "state_to_dict",
        "dict_to_state",
        "INVARIANT_MESSAGES",
    ),
    "observation": (
        "PIECES",
        "SEAT_PIECES",
        "OBS_SIZE",
        "BOUNDS",
        "OBSERVATION_VERSION",
        "observation_pieces",
        "encode_into",
        "LAYOUT",
    ),
    "rendering": ("render_text", "compact_text"),
    "viewer": ("Drawing", "position_svg", "board_targets", "action_words"),
    "bots": ("BOTS", "choose_scripted"),
    "env": ("raw_env", "env", "ENV_NAME"),
    "positions": (
        "build",
        "build_dict",
        "describe",
        "FIELDS",
        "position",
        "start",
        "play",
        "legal_names",
    ),
}
#: The longest a game's ``viewer.action_words`` may say an action (one line of a page's list).
ACTION_WORDS_LIMIT = 160
#: The compiled kernels every engine provides (see the module docstring).
KERNELS = (
    "setup",
    "advance",
    "next_decision",
    "answer",
    "legal_actions",
    "legal_mask",
    "step",
    "apply",
    "current_player",
    "is_terminal",
    "is_truncated",
    "scores",
    "tie_breaks",
    "returns",
    "clock",
    "check_invariants",
    "accepted_actions",
    "determinize",
)
#: The layout names every engine provides.
LAYOUT_NAMES = (
    "STATE_SIZE",
    "STATE_DTYPE",
    "FIELDS",
    "PLAYER_FIELDS",
    "STACK",
    "STACK_SIZE",
    "STACK_ENTRY",
    "KIND_OFFSET",
    "CLOCK",
)


#: In a ``ladder_spec`` (`Bot`, ``agents.registry.AgentInfo``): where the public ladder writes
#: its search budget, the simulations per move of its ``--sims``.
LADDER_SIMS = "{sims}"


@dataclass(frozen=True)
class AddedChoice:
    """A decision that a game's engine once answered by itself and now asks a player (a rules
    fix), declared in the engine's ``ADDED_CHOICES`` so that records written before still
    replay: their moves go straight on where today's engine asks it.

    A record whose ``engine`` version is older than ``since`` replays (`record.replay`) with
    the old answer made explicit: at a decision whose legal actions all lie in ``block`` and
    whose recorded action is not one of them, the first legal action is played. The block
    must keep the engine's old answer first (its ids in the order the old engine chose by),
    and come after every older block, so that the ids before it keep their meaning.

    Attributes:
        block: the key of the action block (``engine.BLOCKS``) of its actions.
        since: the first ``caylus_env`` version that asks it (``"0.3.0"``).
        doc: the rule, and what the engine chose before.
    """

    block: str
    since: str
    doc: str


@dataclass(frozen=True)
class Bot:
    """One agent a game brings, as ``caylus agents`` lists it and ``make_agent`` builds it.

    Attributes:
        head: the spec's first word (``castle``, ``mcts``).
        factory: ``factory(spec, argument or None)`` -> a new agent.
        syntax: the spec's grammar (``mcts:SIMS[:ROLLOUT][:key=value...]``).
        description: one line: what it plays and what a move costs.
        options: the allowed arguments and options (empty for agents that take none).
        needs_arg: whether the spec needs ``:ARGUMENT`` after the head.
        scripted: the bot's row in the game's compiled ``choose_scripted`` (an opponent the
            batched training env plays inside its compiled step), or None.
        ladder_spec: the spec the public ladder (``caylus ladder``) rates it as, where
            `LADDER_SIMS` stands for the ladder's simulations per move (``mcts:{sims}``);
            None: the head itself for a bot that takes no argument, left out of the ladder
            for one that needs an argument.
        paths: for a bot whose argument names files or directories to read,
            ``paths(argument or None)`` -> those paths as written, without reading them (the
            agent registry's ``spec_paths``: a server confines them before the factory runs);
            None for a bot that reads no file of the user's.
    """

    head: str
    factory: Callable[[str, str | None], Any] = field(repr=False)
    syntax: str = ""
    description: str = ""
    options: str = ""
    needs_arg: bool = False
    scripted: int | None = None
    ladder_spec: str | None = None
    paths: Callable[[str | None], Sequence[str | PathLike[str]]] | None = field(
        default=None, repr=False
    )


def scripted_bots(
    factory: Callable[[str, str | None], Any], descriptions: Mapping[str, str]
) -> dict[str, Bot]:
    """The ``Bot`` of each of a game's scripted strategies, by head: ``descriptions`` maps each
    strategy's name to its line for ``caylus agents``, in the order of the rows of the game's
    compiled ``choose_scripted`` (``Bot.scripted``); ``factory`` makes the agent (the spec is
    the strategy's name, and it takes no argument).

    Example:
        >>> bots = scripted_bots(lambda spec, arg: spec, {"a": "plays a", "b": "plays b"})
        >>> {head: (b.syntax, b.scripted) for head, b in bots.items()}
        {'a': ('a', 0), 'b': ('b', 1)}
    """
    return {
        name: Bot(name, factory, name, description, scripted=row)
        for row, (name, description) in enumerate(descriptions.items())
    }


@dataclass(frozen=True)
class GameSpec:
    """One game of the platform: the facts the shared layers need, and its modules.

    Attributes:
        name: lower case with underscores; the records' ``game`` field and ``--game``.
        title: the name people use (``Puerto Rico``); a game whose rules are reconstructed
            says so here.
        summary: one line: designer, year, what is played (``caylus games``).
        package: the game's folder as a package (``caylus_env.puerto_rico``).
        env_name: the versioned PettingZoo name (``puerto_rico_v0``).
        min_players: fewest players the rules allow.
        max_players: most players the rules allow.
        default_players: the environment's default player count.
        score_word: what the rulebook calls a seat's score (``prestige``, ``victory
            points``), for people.
        score_key: the score's word as a key (``prestige``, ``score``): the end-of-game info
            of the environment is ``final_<score_key>`` as well as ``final_score``.
        clock_word: what the rulebook calls the clock that ``Game.round`` reads (``turn``,
            ``round``).
        score_scale: about a winning score: the observation divides scores by it, and the
            training's shaped reward measures score margins in its units.
        rules_doc: the game's rules reference in ``docs/rules/``.
        option_sets: named sets of options that together cover the game's variants (the
            rules as printed first, ``{}``): the conformance suite, the benchmarks and the
            golden playthroughs run each of them.
        truncating_options: options under which random play is cut off by the game's
            decision cap within a few dozen decisions (what the suite tests truncation
            with), or None for a game without a cap.
        record_formats: formats of this game's records written before the shared record
            (read by `caylus_env.core.record`, never written).
    """

    name: str
    title: str
    summary: str
    package: str
    env_name: str
    min_players: int
    max_players: int
    default_players: int
    score_word: str
    score_key: str
    clock_word: str
    score_scale: float
    rules_doc: str
    option_sets: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: {"rules": {}})
    truncating_options: Mapping[str, Any] | None = None
    record_formats: tuple[str, ...] = ()

    def module(self, part: str) -> ModuleType:
        """The game's module ``part`` (one of `PARTS`), imported on first use.

        Raises:
            ValueError: for a part that is not one of `PARTS`.
        """
        if part not in PARTS:
            raise ValueError(f"unknown game module {part!r}; allowed: {', '.join(PARTS)}")
        return importlib.import_module(f"{self.package}.{part}")

    def engine(self) -> ModuleType:
        """The rules engine (``Game``, ``GameConfig``, ``kernels``, ...)."""
        return self.module("engine")

    def observation(self) -> ModuleType:
        """The observer (``PIECES``, ``OBS_SIZE``, ``encode_into``, ...)."""
        return self.module("observation")

    @property
    def player_counts(self) -> range:
        return range(self.min_players, self.max_players + 1)

    def options(self) -> dict[str, Any]:
        """The game's options (``GameConfig`` fields but ``num_players``) and their defaults."""
        return self.engine().GameConfig.option_defaults()

    def config(self, num_players: int | None = None, **options: Any) -> Any:
        """The engine's ``GameConfig`` of ``num_players`` (default ``default_players``) and
        ``options``.

        Raises:
            ValueError: naming an unknown option or a value that is not allowed.
        """
        players = self.default_players if num_players is None else num_players
        return self.engine().GameConfig.from_dict({**options, "num_players": players})

    def new_game(self, config: Any = None, seed: int = 0) -> Any:
        """A fresh ``Game`` of this game (default options) on setup ``seed``."""
        return self.engine().Game(config if config is not None else self.config(), seed)

    def describe(self) -> str:
        """One line for ``caylus games``: name, players, options."""
        options = ", ".join(f"{k}={v!r}" for k, v in self.options().items())
        players = f"{self.min_players}-{self.max_players} players"
        return f"{self.name}: {self.title}, {players}; options: {options or 'none'}"


__all__ = [
    "ACTION_WORDS_LIMIT",
    "KERNELS",
    "LADDER_SIMS",
    "LAYOUT_NAMES",
    "PARTS",
    "REQUIRED",
    "AddedChoice",
    "Bot",
    "GameSpec",
    "scripted_bots",
]
