"""MCTSAgent: the planning protocol, its errors, and strength against random play."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from arena import ArenaError, RandomAgent, make_agent, play
from arena.agents import MCTSAgent
from arena.agents.mcts import check_plannable
from envs.rock_paper_scissors import RockPaperScissors
from envs.tic_tac_toe import TicTacToe


def record_against_random(name, simulations, games):
    """Wins, draws and losses of MCTS against RandomAgent, alternating seats, seeded."""
    env = envs.make(name)
    wins = draws = losses = 0
    for game in range(games):
        seat = game % 2
        planner = MCTSAgent(env, simulations=simulations, seed=game)
        agents = [planner, RandomAgent()] if seat == 0 else [RandomAgent(), planner]
        episode = play(env, agents, seed=100 + game)
        winners = episode.winners
        wins += winners == [f"player_{seat}"]
        draws += not winners
        losses += winners == [f"player_{1 - seat}"]
    return wins, draws, losses


def test_mcts_beats_random_at_tic_tac_toe():
    wins, draws, losses = record_against_random("tic_tac_toe", simulations=100, games=10)
    assert wins >= 7 and losses <= 1, (wins, draws, losses)


def test_mcts_beats_random_at_connect_four():
    wins, draws, losses = record_against_random("connect_four", simulations=80, games=8)
    assert wins >= 6, (wins, draws, losses)


def test_mcts_takes_a_winning_move_and_blocks_a_losing_one():
    env = envs.make("connect_four")
    env.reset()
    for column in (0, 6, 0, 6, 0):  # player_0 threatens four in column 0
        observations, *_, infos = env.step({env.acting_agents[0]: column})
    planner = MCTSAgent(env, simulations=200, seed=0)
    assert planner.act(observations["player_1"], infos["player_1"]["action_mask"]) == 0  # block
    observations, *_, infos = env.step({"player_1": 5})  # player_1 does not block
    before = env.board_text()
    assert planner.act(observations["player_0"], infos["player_0"]["action_mask"]) == 0  # win
    assert env.board_text() == before and env.acting_agents == ("player_0",)  # the live game is untouched


def test_same_seed_same_game_and_the_registry_name():
    env = envs.make("tic_tac_toe")
    first = play(env, [make_agent("mcts", env=env, simulations=30, seed=1), RandomAgent()], seed=4)
    again = play(env, [MCTSAgent(env, simulations=30, seed=1), RandomAgent()], seed=4)
    assert first == again
    assert str(MCTSAgent(env, simulations=30)) == "MCTSAgent(simulations=30)"


class DeepcopiedTicTacToe(TicTacToe):
    clone = None  # plan on copy.deepcopy instead


def test_envs_without_clone_are_copied_with_deepcopy():
    env = DeepcopiedTicTacToe()
    env.reset()
    for move in (0, 3, 1, 4, 8):  # X holds 0, 1, 8 and threatens 2; O holds 3, 4 and wins at 5
        observations, *_, infos = env.step({env.acting_agents[0]: move})
    before = env.board_text()
    choice = MCTSAgent(env, simulations=300, seed=0).act(observations["player_1"], infos["player_1"]["action_mask"])
    assert choice == 5
    assert env.board_text() == before and env.acting_agents == ("player_1",)


@pytest.mark.parametrize("name, reason", [
    ("kuhn_poker", "declares perfect_information = False"),
    ("leduc_poker", "declares perfect_information = False"),
    ("liars_dice", "declares perfect_information = False"),
    ("rock_paper_scissors", "does not declare perfect_information"),
])
def test_hidden_information_and_simultaneous_envs_are_refused(name, reason):
    with pytest.raises(ArenaError, match=rf"MCTSAgent cannot plan on <\w+>: it {reason} \(hidden information, "
                                         r"chance or simultaneous moves\)"):
        MCTSAgent(envs.make(name))


class DeclaredRockPaperScissors(RockPaperScissors):
    perfect_information = True


class SimultaneousButPlannable(DeclaredRockPaperScissors):
    @property
    def acting_agents(self):
        return tuple(self._acting or ())


def test_the_protocol_is_checked_piece_by_piece():
    with pytest.raises(ArenaError, match=r"no 'acting_agents' property naming the agents that must act next"):
        check_plannable(DeclaredRockPaperScissors())
    env = SimultaneousButPlannable()
    planner = MCTSAgent(env)
    observations, infos = env.reset()
    with pytest.raises(ArenaError, match=r"exactly one agent to act .* got \['player_0', 'player_1'\]"):
        planner.act(observations["player_0"])
    with pytest.raises(ArenaError, match="MCTSAgent needs the arena.MultiAgentEnv it plays in, got str"):
        MCTSAgent("tic_tac_toe")
    with pytest.raises(ValueError, match="simulations must be a positive integer, got 0"):
        MCTSAgent(envs.make("tic_tac_toe"), simulations=0)


def test_a_single_legal_move_is_played_without_search():
    env = envs.make("tic_tac_toe")
    env.reset()
    for move in (0, 1, 2, 4, 3, 5, 7, 6):
        observations, *_, infos = env.step({env.acting_agents[0]: move})
    assert infos["player_0"]["action_mask"].tolist() == [0] * 8 + [1]
    assert MCTSAgent(env, simulations=1).act(observations["player_0"], infos["player_0"]["action_mask"]) == 8
    assert np.array_equal(observations["player_0"], env._board)
