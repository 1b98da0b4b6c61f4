"""Training in team games: a seat beside a frozen teammate (--teammate), a whole side as one model (--control team)."""

from __future__ import annotations

import json
import shlex

import numpy as np
import pytest
from gymnasium import spaces

import envs
from arena import GroupTeams, RandomAgent, Team, play
from arena.cli import main
from arena.testing import check_env
from arena.tournament import TournamentRules, run_tournament
from arena.training import SingleAgentEnv, load_trained_agent, match, side_agent, team_stack
from envs.rock_paper_scissors import BeatMostCommonAgent
from interfaces.reward import ScaleReward
from tests.arena.scripted_envs import SidesEnv

ENV = "team_rock_paper_scissors"


def test_teammates_sit_on_the_learners_side_and_opponents_on_the_others():
    env = SingleAgentEnv(
        ENV,
        "random",
        seats=["player_0", "player_2", "player_4"],
        teammates=BeatMostCommonAgent(),
        shuffle_seats=True,
        env_kwargs={"team_sizes": (3, 2)},
    )
    for seed in range(6):
        _, info = env.reset(seed=seed) if seed == 0 else env.reset()
        seat = info["seat"]
        side = next(ids for ids in env.env.teams.values() if seat in ids)
        for agent_id, agent in env.lineup.items():
            assert isinstance(agent, BeatMostCommonAgent) == (agent_id in side)
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            done = terminated or truncated
    with pytest.raises(ValueError, match=r"the learner's seats .* must lie in sides of one size, got sizes \[2, 3\]"):
        SingleAgentEnv(ENV, "random", teammates="random", env_kwargs={"team_sizes": (3, 2)})
    fixed = SingleAgentEnv(ENV, "random", seats="player_1", teammates=["beat_most_common"])
    fixed.reset(seed=0)
    assert isinstance(fixed.lineup["player_3"], BeatMostCommonAgent)
    with pytest.raises(ValueError, match=r"1 other seats need 1 teammates, got 2"):
        SingleAgentEnv(ENV, "random", seats="player_1", teammates=["random", "random"])
    with pytest.raises(ValueError, match=r"teammates need an env with sides, but its teams is None"):
        SingleAgentEnv("rock_paper_scissors", "random", teammates="random")


def test_match_judges_the_side_and_seats_the_teammate():
    env = envs.make(ENV)
    score = match(env, BeatMostCommonAgent(), RandomAgent(), 8, seed=1, teammate=BeatMostCommonAgent())
    assert score.games == 8
    again = match(env, BeatMostCommonAgent(), RandomAgent(), 8, seed=1, teammate=BeatMostCommonAgent())
    assert score.outcomes == again.outcomes


def test_group_teams_is_an_env_with_one_agent_per_side():
    check_env(GroupTeams(envs.make(ENV, team_sizes=(2, 3))), episodes=2)
    grouped = GroupTeams(SidesEnv((2, 2)))
    check_env(grouped, episodes=2)
    obs, infos = grouped.reset(seed=0)
    assert obs == {"side_0": (0, 0), "side_1": (0, 0)} and infos["side_0"]["acting"] == (True, True)
    obs, rewards, *_, infos = grouped.step({"side_0": (1, 1), "side_1": (1, 0)})
    assert infos["side_0"]["acting"] == (False, True)  # p0 is out of play: its last observation stays
    with pytest.raises(ValueError, match=r"GroupTeams: needs an arena env with sides \(teams\), got .* teams = None"):
        GroupTeams(envs.make("tic_tac_toe"))
    side = side_agent("random", 2)
    stack = team_stack("interfaces.observation:OneHot", 2)
    assert str(stack) == "ConcatenateTeam(Combine(None, [OneHot(), OneHot()]))"
    play(grouped, {"side_0": side, "side_1": side_agent(RandomAgent(), 2)}, seed=3)


def test_train_a_seat_beside_a_teammate_then_enter_it_in_a_team_tournament(tmp_path, capsys):
    out = tmp_path / "mate"
    code = main(
        [
            "train",
            ENV,
            "--algo",
            "ppo",
            "--timesteps",
            "128",
            "--n-envs",
            "1",
            "--eval-every",
            "128",
            "--eval-games",
            "4",
            "--teammate",
            "beat_most_common",
            "--opponent",
            "random",
            "--reference",
            "random",
            "--interface",
            "one_hot",
            "--progress",
            "none",
            "--out",
            str(out),
        ]
    )
    assert code == 0 and "vs random: win rate" in capsys.readouterr().out
    result = run_tournament(ENV, [f"mixed={out}+beat_most_common", "bots=beat_most_common"], games=2, seed=0)
    assert result.complete and not result.forfeits
    assert result.members_of("mixed")[1] == "beat_most_common"
    assert result.games[0].versions["mixed"].startswith("AgtItfWrapper(mate, OneHot()) (")


def test_train_a_whole_side_as_one_model(tmp_path, capsys):
    out = tmp_path / "side"
    code = main(
        [
            "train",
            ENV,
            "--control",
            "team",
            "--algo",
            "ppo",
            "--timesteps",
            "128",
            "--n-envs",
            "1",
            "--eval-every",
            "128",
            "--eval-games",
            "4",
            "--opponent",
            "beat_most_common",
            "--progress",
            "none",
            "--interface",
            "one_hot",
            "--out",
            str(out),
        ]
    )
    assert code == 0 and "(a whole side)" in capsys.readouterr().out
    assert json.loads((out / "agent.json").read_text())["team_size"] == 2
    agent = load_trained_agent(out)
    episode = play(envs.make(ENV), {"team_0": agent, "team_1": Team([RandomAgent(), RandomAgent()])}, seed=2)
    assert agent.agent.action_space == spaces.MultiDiscrete([3, 3])
    assert episode.length == 3 and np.isfinite(episode.team_returns["team_0"])


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["tic_tac_toe", "--teammate", "random"],
            "--teammate needs a team game; tic_tac_toe has no sides",
        ),
        (["tic_tac_toe", "--control", "shared"], "--control shared needs a team game; tic_tac_toe has no sides"),
        ([ENV, "--control", "team", "--teammate", "random"], "--teammate plays beside a one-seat learner"),
        (
            [ENV, "--control", "team", "--env-options", '{"team_sizes": [1, 2]}'],
            r"--control team needs sides of one size, team_rock_paper_scissors has sides of sizes [1, 2]",
        ),
    ],
)
def test_team_training_options_are_checked(tmp_path, capsys, argv, message):
    assert main(["train", *argv, "--out", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err


def test_pommerman_team_mode_seat_beside_a_teammate_and_whole_side(tmp_path, capsys):
    options = '{"mode": "team", "max_steps": 20}'
    common = [
        "--algo",
        "ppo",
        "--timesteps",
        "64",
        "--n-envs",
        "1",
        "--eval-every",
        "64",
        "--eval-games",
        "2",
        "--reference",
        "random",
        "--interface",
        "pommerman_features",
        "--progress",
        "none",
        "--env-options",
        options,
    ]
    mate = tmp_path / "mate"
    assert (
        main(
            [
                "train",
                "pommerman",
                "--teammate",
                "pommerman_simple",
                "--opponent",
                "pommerman_simple",
                *common,
                "--out",
                str(mate),
            ]
        )
        == 0
    )
    result = run_tournament(
        rules=TournamentRules.make(
            "pommerman",
            [f"mixed={mate}+pommerman_simple", "bots=pommerman_simple"],
            games=2,
            env_kwargs={"mode": "team", "max_steps": 20},
        )
    )
    assert result.complete and not result.forfeits and result.teams["team_0"] == ("agent_0", "agent_2")
    side = tmp_path / "side"
    assert (
        main(["train", "pommerman", "--control", "team", "--opponent", "pommerman_simple", *common, "--out", str(side)])
        == 0
    )
    assert "(a whole side)" in capsys.readouterr().out


def test_the_printed_command_of_a_seat_beside_a_teammate_fills_sides_of_three(tmp_path, capsys):
    # A two-member team (FOLDER+TEAMMATE) cannot fill a side of three seats: the folder enters alone.
    out = tmp_path / "trio"
    code = main(
        [
            "train",
            ENV,
            "--env-options",
            '{"team_sizes": [3, 3]}',
            "--algo",
            "ppo",
            "--timesteps",
            "64",
            "--n-envs",
            "1",
            "--eval-every",
            "64",
            "--eval-games",
            "2",
            "--teammate",
            "beat_most_common",
            "--opponent",
            "random",
            "--reference",
            "random",
            "--interface",
            "one_hot",
            "--progress",
            "none",
            "--algo-options",
            '{"n_steps": 32, "batch_size": 32, "n_epochs": 1}',
            "--out",
            str(out),
        ]
    )
    printed = capsys.readouterr().out
    assert code == 0, printed
    command = printed.split("the folder is an agent: ")[1].splitlines()[0]
    words = shlex.split(command)
    assert words[-1] == f"{out},random" and "beside beat_most_common" in printed
    assert main([*words[1:], "--games", "2", "--backend", "inline", "--db", str(tmp_path / "t.db")]) == 0, (
        capsys.readouterr().err
    )


def test_reward_shaping_in_a_members_stack_reaches_the_model_of_a_whole_side():
    """GroupTeams gives a side one scalar reward; each member's stack transforms it (Combine), the side gets the mean."""

    def episode_rewards(member: str | None) -> list[float]:
        env = SingleAgentEnv(
            GroupTeams(envs.make(ENV)),
            side_agent("beat_most_common", 2),
            seats="team_0",
            interface=team_stack(member, 2),
        )
        env.reset(seed=4)
        rewards, done = [], False
        while not done:
            _, reward, terminated, truncated, _ = env.step(np.array([0, 1]))
            rewards.append(reward)
            done = terminated or truncated
        return rewards

    plain, scaled = episode_rewards(None), episode_rewards("scale_reward(factor=10)")
    assert any(plain) and scaled == [10 * reward for reward in plain]
    # Members that disagree: the side gets the mean of what each makes of the side's reward.
    team = team_stack(None, 2)
    inner = team.inner
    inner.interfaces = [ScaleReward(factor=1.0), ScaleReward(factor=3.0)]
    team.setup(spaces.Tuple([spaces.Discrete(3)] * 2), spaces.Tuple([spaces.Discrete(3)] * 2))
    team.transform_reset((0, 0))
    assert team.transform_reward(1.5) == 3.0
