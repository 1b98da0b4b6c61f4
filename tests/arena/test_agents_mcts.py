"""MCTSAgent: the planning protocol, its errors, and strength against random play."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from arena import ArenaError, MultiAgentEnv, RandomAgent, make_agent, play
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
    clone = MultiAgentEnv.clone  # the default: plan on copy.deepcopy


def test_envs_without_clone_are_copied_with_deepcopy():
    env = DeepcopiedTicTacToe()
    env.reset()
    for move in (0, 3, 1, 4, 8):  # X holds 0, 1, 8 and threatens 2; O holds 3, 4 and wins at 5
        observations, *_, infos = env.step({env.acting_agents[0]: move})
    before = env.board_text()
    choice = MCTSAgent(env, simulations=300, seed=0).act(observations["player_1"], infos["player_1"]["action_mask"])
    assert choice == 5
    assert env.board_text() == before and env.acting_agents == ("player_1",)


def test_simultaneous_envs_without_a_sampler_are_refused():
    with pytest.raises(
        ArenaError,
        match=r"MCTSAgent cannot plan on <RockPaperScissors>: it does not declare "
        r"perfect_information and has no sample_hidden_state",
    ):
        MCTSAgent(envs.make("rock_paper_scissors"))


# ------------------------------------------------------------- hidden information (IS-MCTS)
def returns_against_random(name, simulations, games, **options):
    """MCTS's summed return against RandomAgent, alternating seats, seeded."""
    total = 0.0
    for game in range(games):
        env = envs.make(name, **options)
        seat = game % 2
        agents = [RandomAgent(seed=game), RandomAgent(seed=game)]
        agents[seat] = MCTSAgent(env, simulations=simulations, seed=game)
        total += play(env, agents, seed=100 + game).returns[f"player_{seat}"]
    return total


@pytest.mark.parametrize("name, options", [("kuhn_poker", {}), ("leduc_poker", {}), ("liars_dice", {"players": 2})])
def test_mcts_searches_information_sets_where_the_env_samples_hidden_state(name, options):
    env = envs.make(name, **options)
    assert MCTSAgent(env).information_sets and not MCTSAgent(envs.make("tic_tac_toe")).information_sets
    episode = play(env, [MCTSAgent(env, simulations=40, seed=0), RandomAgent(seed=1)], seed=2)
    assert episode.length >= 2 and sorted(episode.returns) == ["player_0", "player_1"]  # a whole game
    assert play(env, [MCTSAgent(env, simulations=40, seed=0), RandomAgent(seed=1)], seed=2) == episode  # seeded


def test_mcts_plays_liars_dice_with_three_players():
    env = envs.make("liars_dice", players=3, dice=1)
    episode = play(env, [MCTSAgent(env, simulations=30, seed=0), RandomAgent(seed=1), RandomAgent(seed=2)], seed=0)
    assert sorted(episode.returns.values()) == [-1.0, 0.0, 1.0]


def test_mcts_beats_random_at_liars_dice_and_leduc_poker():
    assert returns_against_random("liars_dice", simulations=50, games=8, players=2) >= 6  # +1 a win, -1 a loss
    assert returns_against_random("leduc_poker", simulations=50, games=8) > 0


def _leduc_after(cards, bets):
    env = envs.make("leduc_poker")
    observations, infos = env.reset(options={"cards": cards})
    for action in bets:
        observations, _, _, _, infos = env.step({env.acting_agents[0]: action})
    return env, observations, infos


def test_mcts_never_sees_the_hidden_cards():
    """Two deals that player_0 cannot tell apart give the same search, move for move."""
    choices = []
    for cards in (["K", "J", "Q"], ["K", "Q", "J"]):  # player_1's card and the public card differ
        env, observations, infos = _leduc_after(cards, [2, 2])  # player_0 raises, player_1 re-raises
        planner = MCTSAgent(env, simulations=60, seed=3)
        choices.append(planner.act(observations["player_0"], infos["player_0"]["action_mask"]))
        twins = [
            env.sample_hidden_state("player_0", observations["player_0"], np.random.default_rng(5)) for _ in range(2)
        ]
        choices.append([(twin._cards, twin._history, twin.np_random.integers(1000)) for twin in twins])
    assert choices[0] == choices[2] and choices[1] == choices[3]
    assert all(twin[0][0] == 2 for twin in choices[1])  # player_0's own K is kept


def test_the_sampler_keeps_what_the_agent_knows_and_redraws_the_rest():
    env, observations, _ = _leduc_after(["K", "J", "Q"], [1, 1])  # both check: the public Q is shown
    rng = np.random.default_rng(0)
    deals = {tuple(env.sample_hidden_state("player_0", observations["player_0"], rng)._cards) for _ in range(40)}
    assert deals == {(2, 0, 1), (2, 1, 1), (2, 2, 1)}  # own K and public Q kept; player_1 holds any card left
    assert env._cards == [2, 0, 1]  # the live game is untouched
    dice = envs.make("liars_dice", players=3, dice=2)
    observations, _ = dice.reset(options={"dice": [[6, 6], [1, 1], [2, 3]]})
    rolls = [dice.sample_hidden_state("player_0", observations["player_0"], rng)._rolls for _ in range(30)]
    assert all(roll[0] == [6, 6] and len(roll[1]) == len(roll[2]) == 2 for roll in rolls)
    assert len({tuple(map(tuple, roll)) for roll in rolls}) > 20
    with pytest.raises(ValueError, match=r"expected the current observation of 'player_1'"):
        dice.sample_hidden_state("player_1", observations["player_0"], rng)


def test_an_interface_in_front_of_the_information_set_search_is_refused():
    env, observations, infos = _leduc_after(["K", "J", "Q"], [2])
    planner = MCTSAgent(env, simulations=5)
    with pytest.raises(ArenaError, match=r"needs the raw observation of 'player_1'"):
        planner.act(observations["player_1"].astype(np.float32) / 2, infos["player_1"]["action_mask"])


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


def test_the_readme_command_plays_mcts_at_leduc_poker(capsys, monkeypatch, tmp_path):
    from arena.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["tournament", "leduc_poker", "--agents", 'random,mcts{"simulations": 20}', "--games", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 of 2 games stored" in out and "could not be built" not in out
