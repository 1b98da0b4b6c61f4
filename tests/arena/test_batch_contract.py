"""The batch contract (arena.batch) and check_batch over every bundled env with a batch."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena import RandomAgent
from arena.batch import AlternatingBatch, GameBatch, SimultaneousBatch, num_actions, turn_model
from arena.errors import ContractViolation, InvalidTypeError
from arena.testing import check_batch
from arena.training.matches import can_match_batch
from arena.training.vectorised import batch_vec_env
from envs.board_batch import TicTacToeBatch
from envs.tic_tac_toe import TicTacToe

SMALL_SNAKE = {"height": 8, "width": 8, "num_snakes": 3, "max_steps": 15}
BUNDLED = [
    ("tic_tac_toe", {}, "alternating"),
    ("connect_four", {}, "alternating"),
    ("snake", SMALL_SNAKE, "simultaneous"),
    ("pong_2p", {"rounds": 2, "max_round_steps": 12}, "simultaneous"),
]


@pytest.mark.parametrize("name, options, turns", BUNDLED)
def test_bundled_batches_declare_their_turn_model_and_keep_the_protocol(name, options, turns):
    env = envs.make(name, **options)
    batch = env.make_batch(2)
    assert isinstance(batch, GameBatch) and turn_model(batch) == turns == batch.turns
    assert isinstance(batch, AlternatingBatch if turns == "alternating" else SimultaneousBatch)
    assert tuple(batch.possible_agents) == tuple(env.possible_agents) and batch.num_games == 2
    assert num_actions(batch) == env.action_space(env.possible_agents[0]).n
    # one trainer for every batch; the declaration, not the presence of to_play, picks how it steps
    venv = batch_vec_env(env, 2, "random")
    assert type(venv).__name__ == "BatchVecEnv" and venv.turns == turns


@pytest.mark.parametrize("name, options, _", BUNDLED)
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**40), num_games=st.integers(1, 3))
def test_every_game_of_the_batch_plays_what_the_single_env_plays(name, options, _, seed, num_games):
    check_batch(envs.make(name, **options), num_games=num_games, seed=seed, steps=25)


def test_pommerman_batch_plays_what_the_single_env_plays_through_the_planes():
    from interfaces.pommerman import PommermanBatchPlanes  # the batch's encoding of the env's observation

    env = envs.make("pommerman", mode="team", max_steps=12)
    batch = env.make_batch(1)
    assert turn_model(batch) == "simultaneous" and isinstance(batch, SimultaneousBatch)
    planes = PommermanBatchPlanes(max_steps=12)
    planes.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    check_batch(env, num_games=2, seed=3, steps=14, observe=lambda agent, obs: planes.transform_observation(obs))


class _NegatedRewards(TicTacToeBatch):
    def step(self, actions, games=None):
        observations, rewards, terminations, truncations, infos = super().step(actions, games)
        return observations, -rewards, terminations, truncations, infos


class _Undeclared(TicTacToeBatch):
    turns = "round-robin"  # type: ignore[assignment]  # not a TurnModel on purpose


class _TicTacToeWith(TicTacToe):
    def __init__(self, batch_class: type) -> None:
        super().__init__()
        self.batch_class = batch_class

    def make_batch(self, num_games, **options):
        return self.batch_class(num_games, **options)


def test_check_batch_names_the_first_game_that_differs_from_the_single_env():
    with pytest.raises(ContractViolation, match=r"step \d+, game 0: player_\d got \(reward"):
        check_batch(_TicTacToeWith(_NegatedRewards), num_games=2, steps=20)


def test_an_undeclared_turn_model_is_refused_with_what_was_expected():
    with pytest.raises(ContractViolation, match="must declare turns"):
        check_batch(_TicTacToeWith(_Undeclared), num_games=1)
    with pytest.raises(InvalidTypeError, match=r"turns, one of \('alternating', 'simultaneous', 'sides'\); got 'round"):
        turn_model(_Undeclared(1))
    # a trainer reads the declaration: this two-player board batch is not played as turn-based
    with pytest.raises(InvalidTypeError, match="must declare its turn model"):
        can_match_batch(_TicTacToeWith(_Undeclared), RandomAgent(), RandomAgent())


class _NoSpaces:
    turns = "simultaneous"
    num_games = 1
    possible_agents = ("player_0", "player_1")


def test_a_batch_without_the_protocols_members_is_named():
    with pytest.raises(ContractViolation, match="must return an arena.batch.GameBatch"):
        check_batch(_TicTacToeWith(lambda num_games: _NoSpaces()), num_games=1)


def test_check_batch_refuses_bad_arguments():
    with pytest.raises(ValueError, match="num_games must be a positive integer, got 0"):
        check_batch(envs.make("tic_tac_toe"), num_games=0)
