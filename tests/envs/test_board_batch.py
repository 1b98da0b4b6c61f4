"""TicTacToeBatch and ConnectFourBatch: every game plays what the single env plays; errors; random play."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import IllegalActionError, InvalidActionError, ResetNeeded
from arena.seeding import derive_seed
from envs.board_batch import BoardBatch
from envs.connect_four import ConnectFour, ConnectFourBatch
from envs.tic_tac_toe import TicTacToe, TicTacToeBatch

PAIRS = [(TicTacToe, TicTacToeBatch), (ConnectFour, ConnectFourBatch)]


def _text(board: np.ndarray) -> str:
    return "\n".join("".join(".XO"[c] for c in row) for row in np.asarray(board).reshape(-1, board.shape[-1]))


@pytest.mark.parametrize("single_cls, batch_cls", PAIRS)
@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32), choices=st.lists(st.integers(0, 2**16), min_size=1, max_size=90), subset=st.booleans()
)
def test_every_game_plays_what_the_single_env_plays(single_cls, batch_cls, seed, choices, subset):
    games = 3
    batch = batch_cls(games)
    singles = [single_cls() for _ in range(games)]
    obs, infos = batch.reset(seed=seed)
    single_obs = []
    for g, env in enumerate(singles):
        o, i = env.reset(seed=derive_seed(seed, g))
        single_obs.append(o["player_0"])
        assert np.array_equal(obs[g], o["player_0"])
        assert np.array_equal(infos["action_mask"][g], i["player_0"]["action_mask"].astype(bool))
    assert infos["to_play"].tolist() == [0] * games
    masks, to_play = infos["action_mask"], infos["to_play"]
    for step, choice in enumerate(choices):
        moving = np.arange(games) if not subset else np.array([g for g in range(games) if (step + g) % 3])
        actions = np.array([np.flatnonzero(masks[g])[choice % masks[g].sum()] for g in moving], dtype=np.int64)
        obs, rewards, terms, truncs, infos = batch.step(actions, games=moving if subset else None)
        assert obs.dtype == np.int8 and rewards.dtype == np.float32 and not truncs.any()
        ended = 0
        for k, g in enumerate(moving):
            env = singles[g]
            mover = env.possible_agents[to_play[g]]
            assert infos["mover"][k] == to_play[g]
            o, r, t, _, i = env.step({mover: int(actions[k])})
            assert rewards[k].tolist() == [r["player_0"], r["player_1"]]
            assert terms[k].tolist() == [t["player_0"], t["player_1"]]
            assert infos["episode_over"][k] == (not env.agents)
            if not env.agents:  # the batch reset the game: compare the last board, then reset the single env
                assert env.board_text().startswith(_text(infos["final_observation"][ended]) + "\n")
                ended += 1
                o, i = env.reset()
                nxt = "player_0"
            else:
                (nxt,) = o
            assert np.array_equal(obs[k], o[nxt])
            assert np.array_equal(infos["action_mask"][k], i[nxt]["action_mask"].astype(bool))
            assert infos["to_play"][k] == env.possible_agents.index(nxt)
            masks[g], to_play[g] = infos["action_mask"][k], infos["to_play"][k]
        assert ended == len(infos["final_observation"])


def test_tic_tac_toe_random_play_matches_the_exact_outcome_distribution():
    batch = TicTacToeBatch(4000)
    batch.reset(seed=0)
    rng = np.random.default_rng(0)
    outcomes = np.zeros(3)
    while outcomes.sum() < 40_000:
        _, rewards, _, _, infos = batch.step(batch.random_actions(rng))
        done = rewards[infos["episode_over"]]
        outcomes += [(done[:, 0] > 0).sum(), (done[:, 1] > 0).sum(), (done[:, 0] == 0).sum()]
    exact = np.array([0.5849, 0.2881, 0.1270])  # X wins, O wins, draw (exhaustive enumeration)
    share = outcomes / outcomes.sum()
    sigma = np.sqrt(exact * (1 - exact) / outcomes.sum())
    assert np.all(np.abs(share - exact) < 4 * sigma), (share, exact)


def test_connect_four_random_play_matches_openspiel():
    pyspiel = pytest.importorskip("pyspiel")  # the openspiel extra (in "all"); present in CI
    import random

    game, rng_py = pyspiel.load_game("connect_four"), random.Random(0)
    theirs = np.zeros(3)
    for _ in range(3000):
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[int(rng_py.random() * len(legal))])
        first = state.returns()[0]
        theirs += [first > 0, first < 0, first == 0]
    batch = ConnectFourBatch(3000)
    batch.reset(seed=0)
    rng = np.random.default_rng(1)
    ours = np.zeros(3)
    while ours.sum() < 12_000:
        _, rewards, _, _, infos = batch.step(batch.random_actions(rng))
        done = rewards[infos["episode_over"]]
        ours += [(done[:, 0] > 0).sum(), (done[:, 1] > 0).sum(), (done[:, 0] == 0).sum()]
    p, q = ours / ours.sum(), theirs / theirs.sum()
    sigma = np.sqrt(q * (1 - q) / theirs.sum() + p * (1 - p) / ours.sum()) + 1e-3
    assert np.all(np.abs(p - q) < 4 * sigma), (p, q)
    assert 0.5 < p[0] < 0.6 and p[2] < 0.01


def test_random_actions_are_legal_and_cover_every_legal_action():
    batch = ConnectFourBatch(2)
    batch.reset(seed=0)
    for _ in range(6):
        batch.step(np.array([3, 0]))  # fills column 3 in game 0, column 0 in game 1
    picks = np.stack([batch.random_actions(np.random.default_rng(s)) for s in range(200)])
    assert set(picks[:, 0]) == {0, 1, 2, 4, 5, 6} and set(picks[:, 1]) == {1, 2, 3, 4, 5, 6}
    assert batch.action_mask[0].tolist() == [True, True, True, False, True, True, True]
    assert batch.heights[0, 3] == 6


@pytest.mark.parametrize("batch_cls", [TicTacToeBatch, ConnectFourBatch])
def test_errors_name_the_batch_the_game_and_what_came(batch_cls):
    batch = batch_cls(3)
    with pytest.raises(ResetNeeded, match="before reset"):
        batch.step(np.zeros(3, dtype=np.int64))
    batch.reset(seed=0)
    with pytest.raises(InvalidActionError, match=r"shape \(3,\).*got float64 array of shape \(3,\)"):
        batch.step(np.zeros(3))
    with pytest.raises(InvalidActionError, match=r"shape \(3,\).*shape \(2,\)"):
        batch.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(
        IllegalActionError,
        match=rf"{batch_cls.__name__} 3 games>: game 1: action -1 is illegal "
        r"for player_0; legal actions are \[0, 1, 2",
    ):
        batch.step(np.array([0, -1, 0]))
    with pytest.raises(IllegalActionError, match=f"game 2: action {batch.n_actions} is illegal"):
        batch.step(np.array([0, 0, batch.n_actions]))
    with pytest.raises(InvalidActionError, match="games must be a 1-d integer array of game indices in 0..2"):
        batch.step(np.array([0]), games=np.array([3]))
    before = batch.observations
    if batch_cls is TicTacToeBatch:
        batch.step(np.array([4, 4, 4]))
        with pytest.raises(
            IllegalActionError,
            match=r"game 0: action 4 is illegal for player_1; legal actions are "
            r"\[0, 1, 2, 3, 5, 6, 7, 8\]",
        ):
            batch.step(np.array([4, 0, 0]))
    else:
        for _ in range(6):
            batch.step(np.array([1, 0, 0]))
        with pytest.raises(
            IllegalActionError,
            match=r"game 0: action 1 is illegal for player_0; legal actions are "
            r"\[0, 2, 3, 4, 5, 6\]",
        ):
            batch.step(np.array([1, 2, 2]))
    assert not np.array_equal(before, batch.observations)  # the failed step changed nothing after that
    snapshot = batch.observations
    with pytest.raises(IllegalActionError):
        batch.step(np.array([batch.n_actions, 0, 0]))
    assert np.array_equal(snapshot, batch.observations)
    for bad in (0, -2, True, 2.5):
        with pytest.raises(ValueError, match=f"{batch_cls.__name__}: num_games must be a positive integer"):
            batch_cls(bad)
    with pytest.raises(ValueError, match="seed must be a non-negative integer, got -1"):
        batch.reset(seed=-1)
    with pytest.raises(ValueError, match="seed must be an int or 3 non-negative ints"):
        batch.reset(seed=[1, 2])
    with pytest.raises(
        ValueError,
        match=rf"{batch_cls.__name__} 3 games>: seed must be an int or 3 non-negative ints, "
        r"got 2\.5",
    ):
        batch.reset(seed=2.5)  # neither an int nor a sequence: the batch's own words, not a TypeError


def test_make_batch_and_spaces_follow_the_single_env():
    env = ConnectFour()
    batch = env.make_batch(5)
    assert isinstance(batch, BoardBatch) and batch.num_games == 5
    assert batch.single_observation_space == env.observation_space("player_0")
    assert batch.single_action_space == env.action_space("player_0")
    assert TicTacToe().make_batch(2).single_observation_space == TicTacToe().observation_space("player_1")
    with pytest.raises(ValueError, match="TicTacToeBatch plays the default rules"):
        TicTacToe(illegal_action="penalty").make_batch(2)
    obs, infos = batch.reset(seed=[1, 2, 3, 4, 5])
    assert obs.shape == (5, 6, 7) and batch.single_observation_space.contains(obs[0])
