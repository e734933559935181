"""``puct:SIMS``, the search guided by a checkpoint (``agents.puct``), for every game: the
compiled network it reads, legal moves over whole games, seeded determinism, hidden
information that never reaches it (Puerto Rico's face-down plantations, Caylus 1303's hidden
prestige), its spec and its errors, strength at 2-player Caylus; and the game contract's
``determinize`` that it relies on, whose check in ``caylus_env.core.checks`` can fail.

A game without a shipped checkpoint plays a tiny one written here (random weights: the
search's behaviour, not its strength, is under test)."""

from __future__ import annotations

import json
import math
import random
import types
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from agents import registry
from agents.base import policy_target
from agents.policy import (
    CHECKPOINT_FORMAT,
    CONFIG_FILE,
    SHIPPED_DIR,
    WEIGHTS_FILE,
    CheckpointError,
    MlpArch,
    PiecesArch,
    load_net,
    sha256_of,
    shipped_checkpoints,
    versions,
)
from agents.puct import MAX_SIMS, PUCTAgent, search_kernels
from caylus_env.caylus.engine import layout as CL
from caylus_env.core.registry import GAME_NAMES, game_spec

CAYLUS = "caylus"
#: The small networks of the tests' own checkpoints (random weights).
TINY_PIECES = PiecesArch(seat_dim=4, space_dim=4, global_dim=8, hidden=16, head=8)
TINY_MLP = MlpArch(layers=(16, 8))


def write_checkpoint(
    game: str, directory: Path, arch: PiecesArch | MlpArch = TINY_PIECES, seed: int = 0
) -> Path:
    """A checkpoint of ``game`` with random weights, as ``training`` writes one."""
    from safetensors.numpy import save_file

    directory.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    tensors = {
        name: (rng.standard_normal(shape) * 0.5).astype(np.float32)
        for name, shape in arch.tensor_shapes(game).items()
    }
    save_file(tensors, str(directory / WEIGHTS_FILE))
    config = {
        "format": CHECKPOINT_FORMAT,
        **versions(game),
        "arch": arch.to_json(),
        "num_players": [],
        "sha256": {WEIGHTS_FILE: sha256_of(directory / WEIGHTS_FILE)},
    }
    (directory / CONFIG_FILE).write_text(json.dumps(config))
    return directory


@pytest.fixture(params=GAME_NAMES)
def game(request: pytest.FixtureRequest) -> str:
    """Every registered game in turn."""
    return str(request.param)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every game's checkpoint of these tests: its shipped ``ppo-`` one, else a tiny one."""
    root = tmp_path_factory.mktemp("puct")
    out = {}
    for game in GAME_NAMES:
        shipped = sorted(n for n, g in shipped_checkpoints().items() if g == game)
        shipped = [n for n in shipped if n.startswith("ppo-")]
        out[game] = SHIPPED_DIR / shipped[0] if shipped else write_checkpoint(game, root / game)
    return out


def puct(
    game: str, checkpoints: dict[str, Path], spec: str = "puct:16", seed: int = 0
) -> PUCTAgent:
    """The registry's agent of ``spec`` on the game's test checkpoint."""
    agent = registry.make_agent(f"{spec}:ckpt={checkpoints[game]}", game)
    assert isinstance(agent, PUCTAgent)
    agent.reset(seed)
    return agent


def positions(game: str, players: int, count: int, seed: int, **options) -> list:
    """``count`` decisions spread over random games of ``game``."""
    spec = game_spec(game)
    rng = random.Random(seed)
    found = []
    g_seed = seed
    while len(found) < count:
        g = spec.new_game(spec.config(players, **options), seed=g_seed)
        g_seed += 1
        while not g.is_over():
            if rng.random() < 0.05:
                found.append(g.clone())
            legal = g.legal_actions()
            g.apply(legal[rng.randrange(len(legal))])
    return found[:count]


# -- the compiled network ---------------------------------------------------------------------
@pytest.mark.parametrize("arch", [TINY_PIECES, TINY_MLP], ids=["pieces", "mlp"])
def test_the_compiled_forward_pass_is_the_policy_and_value_of_the_checkpoint(game, arch, tmp_path):
    net = load_net(write_checkpoint(game, tmp_path / "ckpt", arch, seed=3), game)
    spec = game_spec(game)
    obs = np.zeros((12, spec.observation().OBS_SIZE), np.float32)
    for i, g in enumerate(positions(game, 3, len(obs), seed=1)):
        spec.observation().encode_into(g.state, g.current_player(), obs[i])
    kind, forward, params = net.search_network()
    assert kind == ("pieces" if isinstance(arch, PiecesArch) else "mlp")
    logits = np.empty(net.num_actions, np.float32)
    values = []
    for i in range(len(obs)):
        values.append(forward(obs[i], params, logits, True))
        assert np.array_equal(logits, net.logits(obs[i : i + 1])[0])  # bit for bit
        assert forward(obs[i], params, logits, False) == values[-1]
    np.testing.assert_allclose(values, net.value(obs), rtol=1e-5, atol=1e-5)


def test_the_shaping_of_a_checkpoint_is_read_from_its_training_command(tmp_path):
    assert load_net(SHIPPED_DIR / "ppo-2p").shaping() == 1.0  # --shaping 1.0
    ckpt = write_checkpoint(CAYLUS, tmp_path / "a")
    assert load_net(ckpt).shaping() == 0.0  # no command
    for command, expected in (
        ("caylus train ppo --shaping=0.5 --steps 10", 0.5),
        ("caylus train bc --data d", 0.0),
        ("caylus train ppo --shaping nan", 0.0),
        ("caylus train ppo --shaping 'unclosed", 0.0),
    ):
        config = json.loads((ckpt / CONFIG_FILE).read_text())
        config["command"] = command
        (ckpt / CONFIG_FILE).write_text(json.dumps(config))
        assert load_net(ckpt).shaping() == expected, command


# -- legal moves, purity, the visit counts -----------------------------------------------------
def test_puct_plays_whole_games_with_legal_moves_and_never_changes_the_game(game, checkpoints):
    spec = game_spec(game)
    for players in sorted({spec.min_players, 3}):
        agents = [puct(game, checkpoints, "puct:12", seed=p) for p in range(players)]
        g = spec.new_game(spec.config(players), seed=players)
        searched = 0
        while not g.is_over():
            p = g.current_player()
            legal = g.legal_actions()
            before = g.state.copy()
            a = agents[p].act(g)
            assert np.array_equal(g.state, before), "the search changed the game it was shown"
            assert a in legal
            actions, probs = policy_target(agents[p], a)
            assert set(actions) <= set(legal) and abs(sum(probs) - 1.0) < 1e-9
            if len(legal) > 1:
                searched += 1
                acts, counts = agents[p].visit_counts()
                assert acts == actions and sum(counts) == 12  # each simulation: one root child
                assert agents[p].last_nodes <= 13
            g.apply(a)
        assert g.is_terminal() and searched > 20


def test_the_most_visited_root_child_is_played(game, checkpoints):
    agent = puct(game, checkpoints, "puct:40")
    for g in positions(game, 2, 6, seed=11):
        a = agent.act(g)
        acts, counts = agent.visit_counts()
        assert counts[acts.index(a)] == max(counts)


# -- determinism ---------------------------------------------------------------------------------
def test_the_same_seed_and_game_give_the_same_moves(game, checkpoints):
    spec = game_spec(game)

    def play(seed: int) -> tuple[list[int], list]:
        agents = [puct(game, checkpoints, "puct:10:temp=1", seed=seed + p) for p in range(3)]
        g = spec.new_game(spec.config(3), seed=9)
        moves, visits = [], []
        for _ in range(60):
            a = agents[g.current_player()].act(g)
            moves.append(a)
            visits.append(agents[g.current_player()].visit_counts())
            g.apply(a)
        return moves, visits

    assert play(4) == play(4)


def test_temp_draws_from_the_visit_counts_with_the_agents_seed(checkpoints):
    g = positions(CAYLUS, 2, 1, seed=5)[0]
    greedy = puct(CAYLUS, checkpoints, "puct:30")
    best = greedy.act(g)
    drawn = set()
    for seed in range(12):
        agent = puct(CAYLUS, checkpoints, "puct:30:temp=5", seed=seed)
        drawn.add(agent.act(g))
        assert agent.visit_counts() == greedy.visit_counts()  # Caylus hides nothing
    assert len(drawn) > 1 and best in drawn


# -- hidden information --------------------------------------------------------------------------
def search(agent: PUCTAgent, g) -> tuple:
    """What one search of ``agent`` at ``g`` found: its move, root visits and root values."""
    return agent.act(g), agent.visit_counts(), agent.root_values()


def _pr_stack(g) -> slice:
    from caylus_env.puerto_rico.engine import layout as L

    n = int(g.state[L.PLANTATION_STACK_SIZE_F])
    return slice(L.PLANTATION_STACK, L.PLANTATION_STACK + n)


def test_puerto_rico_face_down_plantations_never_reach_the_search(checkpoints):
    """Two games that differ only in the order of the face-down plantations and the state of
    the generator that draws them get the same search, visit for visit; the search does depend
    on its own draws (other seeds change the counts), so a leak would show."""
    from caylus_env.puerto_rico.engine import kernels as K

    game = "puerto_rico"
    differ = 0
    checked = 0
    for g in positions(game, 3, 16, seed=2):
        stack = _pr_stack(g)
        if len(set(g.state[stack].tolist())) < 2:
            continue
        other = g.clone()
        seed = 0
        while np.array_equal(other.state[stack], g.state[stack]):
            seed += 1
            K.resample_hidden(other.state, seed)  # a new order and a new generator
        assert other.legal_actions() == g.legal_actions()
        runs = [
            search(puct(game, checkpoints, "puct:60", seed=seed), state)
            for state, seed in ((g, 1), (other, 1), (g, 2))
        ]
        assert runs[0] == runs[1]
        differ += runs[0][1] != runs[2][1]
        checked += 1
    assert checked >= 8 and differ > 0


def test_caylus_1303_hidden_prestige_never_reaches_the_search(checkpoints):
    """With hide_opponent_pp, the opponents' true prestige changes nothing in the search (3
    players: every seat's value is read, each from its own observation); without it the same
    change does change the search, so a leak would show."""
    from caylus_env.caylus_1303.engine import layout as L
    from caylus_env.caylus_1303.engine.state import pf

    game = "caylus_1303"
    changed = 0
    for hide in (True, False):
        for g in positions(game, 3, 6, seed=4, hide_opponent_pp=hide):
            me = g.current_player()
            other = g.clone()
            for q in range(3):
                if q != me:
                    other.state[pf(q, L.P_PP)] += 7 + 5 * q
            runs = [
                search(puct(game, checkpoints, "puct:40:shaping=1", seed=3), s) for s in (g, other)
            ]
            if hide:
                assert runs[0] == runs[1]
            else:
                changed += runs[0] != runs[1]
    assert changed > 0


# -- the spec ------------------------------------------------------------------------------------
def test_puct_is_a_platform_agent_of_every_game(game):
    info = next(i for i in registry.describe(game) if i.head == "puct")
    assert info.needs_arg and info.syntax == "puct:SIMS[:key=value...]"
    assert " ms " in info.description and "ckpt=" in info.options


def test_the_spec_options_reach_the_agent(checkpoints):
    agent = puct(CAYLUS, checkpoints, "puct:7:c=2.5:fpu=0:temp=0.5:shaping=0")
    assert (agent.sims, agent.c, agent.fpu, agent.temp, agent.shaping) == (7, 2.5, 0.0, 0.5, 0.0)
    default = registry.make_agent("puct:7", CAYLUS)
    assert default.net.path == SHIPPED_DIR / "ppo-2p" and default.shaping == 1.0
    assert registry.make_agent("puct:7:ckpt=ppo-2p", CAYLUS).net.path == SHIPPED_DIR / "ppo-2p"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("puct", r"needs an argument: puct:SIMS"),
        ("puct:0", r"SIMS must be an int from 1 to 20000"),
        ("puct:ten", r"SIMS must be an int from 1 to 20000.*got 'ten'"),
        (f"puct:{MAX_SIMS + 1}", r"SIMS must be an int"),
        ("puct:10:c=0", r"c=.0.* is not allowed; allowed: c=a number in \(0, 100\]"),
        ("puct:10:fpu=nan", r"fpu='nan' is not allowed"),
        ("puct:10:temp=-1", r"temp='-1' is not allowed"),
        ("puct:10:shaping=1e9", r"shaping='1e9' is not allowed"),
        (
            "puct:10:depth=3",
            r"bad option 'depth=3'; allowed: ckpt=NAME .*c=.*fpu=.*temp=.*shaping=",
        ),
        ("puct:10:c", r"bad option 'c'"),
        ("puct:10:c=1:c=2", r"repeated option 'c=2'"),
        (
            "puct:10:ckpt=/no/such/dir",
            r"neither a shipped checkpoint nor a directory; allowed: ckpt=NAME",
        ),
        # the whole spec is checked before the checkpoint is looked at
        ("puct:10:ckpt=/no/such/dir:c=-1", r"c='-1' is not allowed"),
    ],
)
def test_bad_specs_are_refused_naming_what_is_allowed(spec, message):
    with pytest.raises(ValueError, match=message):
        registry.make_agent(spec, CAYLUS)


def test_a_game_without_a_shipped_checkpoint_needs_ckpt(game, checkpoints, monkeypatch):
    """The error of a game that ships no ``ppo-`` checkpoint (every game in turn, its shipped
    checkpoints hidden); ``ckpt=`` then plays."""
    import agents.puct

    monkeypatch.setattr(agents.puct, "_shipped_of", lambda g: {})
    with pytest.raises(
        ValueError, match=r"has no shipped checkpoint named ppo-\*; give one: ckpt="
    ):
        registry.make_agent("puct:10", game)
    assert registry.make_agent(f"puct:10:ckpt={checkpoints[game]}", game).game == game


def test_another_games_checkpoint_is_refused_naming_both(game, checkpoints):
    other = next(g for g in GAME_NAMES if g != game)
    with pytest.raises(
        CheckpointError, match=rf"checkpoint of game '{other}'.*needs game '{game}'"
    ):
        registry.make_agent(f"puct:10:ckpt={checkpoints[other]}", game)
    agent = puct(game, checkpoints)
    g = game_spec(other).new_game()
    with pytest.raises(ValueError, match=rf"plays '{game}'"):
        agent.act(g)


# -- strength ------------------------------------------------------------------------------------
def test_a_few_simulations_of_ppo_2p_beat_random_at_two_player_caylus():
    spec = game_spec(CAYLUS)
    wins = 0
    for i in range(4):
        agents = [registry.make_agent("puct:8", CAYLUS), registry.make_agent("random", CAYLUS)]
        seat = i % 2
        if seat:
            agents.reverse()
        for k, agent in enumerate(agents):
            agent.reset(100 + 2 * i + k)
        g = spec.new_game(spec.config(2), seed=30 + i)
        while not g.is_over():
            g.apply(agents[g.current_player()].act(g))
        wins += int(g.returns()[seat] > 0)
    assert wins == 4


# -- the contract's determinize and its check ----------------------------------------------------
_SEAT_0_MONEY = CL.PLAYERS + CL.P_MONEY


@njit
def _leaky_determinize(s, seat, seed):
    """A determinization that changes what every seat sees: seat 0's money."""
    s[_SEAT_0_MONEY] += 1


def test_the_random_game_check_refuses_a_determinize_that_changes_what_the_seat_sees():
    """``caylus_env.core.checks``'s determinize check (run at sampled decisions of every
    random game) passes the game's own kernel and fails one that shows a seat something new."""
    from caylus_env.core import checks
    from caylus_env.core.specialize import specialize
    from caylus_env.core.vector import game_key

    spec = game_spec(CAYLUS)
    engine = spec.engine()
    leaky = types.ModuleType("leaky_kernels")
    leaky.__dict__.update(
        {k: getattr(engine.kernels, k) for k in dir(engine.kernels) if not k.startswith("__")}
    )
    leaky.determinize = _leaky_determinize
    g = positions(CAYLUS, 2, 1, seed=8)[0]
    size = spec.observation().OBS_SIZE
    for kernels, hides_nothing in ((engine.kernels, True), (leaky, False)):
        check = specialize(
            (checks._determinize_hides_nothing,),
            f"caylus_{'own' if hides_nothing else 'leaky'}_determinize",
            {"K": kernels, "encode": spec.observation().encode_into},
        )._determinize_hides_nothing
        legal = np.asarray(g.legal_actions(), np.int64)
        probe, scratch = np.empty_like(g.state), np.empty(engine.NUM_ACTIONS, np.int64)
        seen, after = np.empty(size, np.float32), np.empty(size, np.float32)
        key = game_key(0, 0)
        assert check(g.state, probe, legal, len(legal), scratch, seen, after, key) == hides_nothing
    assert checks.FAILURES[10].startswith("determinize changed what the seat to move sees")


# -- the Gumbel root -----------------------------------------------------------------------------
def _mctx_schedule(m: int, sims: int) -> list[int]:
    """DeepMind mctx's ``get_sequence_of_considered_visits``, as its source writes it."""
    if m <= 1:
        return list(range(sims))
    log2max = math.ceil(math.log2(m))
    sequence: list[int] = []
    visits = [0] * m
    considered = m
    while len(sequence) < sims:
        extra = max(1, int(sims / (log2max * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return sequence[:sims]


@pytest.mark.parametrize(("m", "sims"), [(1, 5), (2, 7), (3, 16), (4, 50), (16, 32), (16, 200)])
def test_sequential_halving_spends_the_simulations_as_mctx_does(m, sims, checkpoints):
    agent = puct(CAYLUS, checkpoints, "puct:4:gumbel=4")
    kernels = search_kernels(CAYLUS, agent._kind, agent._forward)
    out = np.full(sims, -1, np.int64)
    kernels.halving_visits(m, sims, out)
    assert out.tolist() == _mctx_schedule(m, sims)


def test_the_gumbel_root_visits_at_most_m_moves_and_plays_a_most_visited_one(game, checkpoints):
    agent = puct(game, checkpoints, "puct:24:gumbel=4")
    for g in positions(game, 3, 5, seed=21):
        before = g.state.copy()
        a = agent.act(g)
        assert np.array_equal(g.state, before)
        legal = g.legal_actions()
        assert a in legal
        dist = agent.action_distribution()
        if len(legal) == 1:
            assert dist == ((legal[0],), (1.0,))
            continue
        acts, counts = agent.visit_counts()
        assert sum(counts) == 24 and len(acts) <= 4
        assert counts[acts.index(a)] == max(counts)
        moves, probs = dist
        assert list(moves) == legal and all(p > 0.0 for p in probs)
        assert sum(probs) == pytest.approx(1.0)


def test_the_improved_policy_is_the_networks_policy_when_sigma_vanishes(checkpoints):
    """``cscale`` near 0 makes ``sigma(completedQ)`` vanish: the improved policy is then the
    softmax of the network's logits over the legal moves (paper, eq. 7)."""
    agent = puct(CAYLUS, checkpoints, "puct:8:gumbel=8:cscale=1e-9")
    for g in positions(CAYLUS, 2, 4, seed=3):
        legal = g.legal_actions()
        if len(legal) < 2:
            continue
        agent.act(g)
        logits = agent._tree[1][0, legal].astype(np.float64)
        prior = np.exp(logits - logits.max())
        assert np.allclose(agent.action_distribution()[1], prior / prior.sum(), atol=1e-6)


def test_one_considered_move_gets_every_simulation(checkpoints):
    agent = puct(CAYLUS, checkpoints, "puct:9:gumbel=1")
    g = next(p for p in positions(CAYLUS, 2, 8, seed=4) if len(p.legal_actions()) > 1)
    a = agent.act(g)
    assert agent.visit_counts() == ((a,), (9,))


def test_the_gumbel_root_gives_the_same_moves_for_the_same_seed(game, checkpoints):
    spec = game_spec(game)

    def play(seed: int) -> list:
        agents = [puct(game, checkpoints, "puct:8:gumbel=4", seed=seed + p) for p in range(2)]
        g = spec.new_game(spec.config(2), seed=3)
        out = []
        for _ in range(30):
            agent = agents[g.current_player()]
            a = agent.act(g)
            out.append((a, agent.visit_counts(), agent.action_distribution()))
            g.apply(a)
        return out

    first = play(1)
    assert play(1) == first
    assert play(2) != first  # the Gumbel draws come from the agent's seed


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("puct:10:gumbel=1.5", r"gumbel='1.5' is not allowed; allowed: gumbel=an integer"),
        ("puct:10:gumbel=-1", r"gumbel='-1' is not allowed"),
        ("puct:10:gumbel=513", r"gumbel='513' is not allowed"),
        ("puct:10:cscale=0", r"cscale='0' is not allowed"),
        ("puct:10:cvisit=inf", r"cvisit='inf' is not allowed"),
        ("puct:10:gumbel=4:temp=1", r"temp=1 with gumbel=4 is not allowed; allowed: temp=0"),
    ],
)
def test_bad_gumbel_options_are_refused_naming_what_is_allowed(spec, message, checkpoints):
    with pytest.raises(ValueError, match=message):
        registry.make_agent(f"{spec}:ckpt={checkpoints[CAYLUS]}", CAYLUS)
