"""Teams in the core: env.teams, check_env's team rules, Episode team results, arena.Team, policy mapping."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena import Agent, AgtItfWrapper, EnvItfWrapper, Episode, Interface, MultiAgentEnv, RandomAgent, Team, play
from arena.errors import ContractViolation, UnknownAgentError
from arena.play_loop import ranks_from_returns
from arena.testing import check_env
from envs.rock_paper_scissors import BeatMostCommonAgent, TeamRockPaperScissors
from interfaces import Flatten, OneHot, team_interface
from tests.arena.scripted_envs import SidesEnv


class Recorder(Agent):
    """Plays 1, counts what it was told."""

    def __init__(self) -> None:
        self.setups, self.resets, self.acts, self.dones = 0, 0, [], []

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        self.setups += 1

    def reset(self, *, seed=None):
        self.resets += 1

    def act(self, observation, action_mask=None, reward=0.0):
        self.acts.append(observation)
        return 1

    def done(self, reward, info):
        self.dones.append(reward)


# ------------------------------------------------------------------ env side
def test_envs_without_sides_have_no_teams():
    assert MultiAgentEnv.teams is None
    assert envs.make("tic_tac_toe").teams is None
    assert play(envs.make("tic_tac_toe"), [RandomAgent(), RandomAgent()], seed=0).team_returns == {}


def test_team_env_declares_its_sides_and_wrappers_keep_them():
    env = TeamRockPaperScissors(team_sizes=(2, 1, 3))
    assert env.teams == {
        "team_0": ("player_0", "player_3"),
        "team_1": ("player_1",),
        "team_2": ("player_2", "player_4", "player_5"),
    }
    assert EnvItfWrapper(env, OneHot()).teams == env.teams
    check_env(env, episodes=2)
    check_env(SidesEnv((1, 3)), episodes=2)


@pytest.mark.parametrize(
    "bad, message",
    [
        ("layout", r"agents \['p0'\] are in no team; every agent must be in exactly one team"),
        ("outcome", r"the members of team 'side_0' ended with different returns .*teammates win or lose together"),
    ],
)
def test_check_env_catches_broken_team_rules(bad, message):
    with pytest.raises(ContractViolation, match=message):
        check_env(SidesEnv((2, 2), bad=bad), episodes=2)


def test_check_env_catches_malformed_team_layouts():
    env = SidesEnv((2, 2))
    env.teams = {"side_0": ("p0", "p2"), "side_1": ("p1", "p3", "p2")}
    with pytest.raises(ContractViolation, match=r"agent 'p2' is in two teams: 'side_0' and 'side_1'"):
        check_env(env)
    env.teams = {"side_0": ["p0", "p2"], "side_1": ("p1", "p3")}
    with pytest.raises(ContractViolation, match=r"team 'side_0' must be a non-empty tuple of agent ids, got \['p0'"):
        check_env(env)
    env.teams = {"side_0": ("p0", "p2", "p9"), "side_1": ("p1", "p3")}
    with pytest.raises(ContractViolation, match=r"team 'side_0' names 'p9', which is not in possible_agents"):
        check_env(env)
    env.teams = {"side_0": ("p0", "p2"), "side_1": ("p1", "p3")}
    env.team_outcome = "sometimes"
    with pytest.raises(ContractViolation, match=r"team_outcome must be 'shared' or 'individual', got 'sometimes'"):
        check_env(env)
    individual = SidesEnv((2, 2), bad="outcome")
    individual.team_outcome = "individual"
    check_env(individual, episodes=1)  # members may earn their own rewards


# --------------------------------------------------------------- Episode side
@st.composite
def team_layouts(draw):
    sizes = draw(st.lists(st.integers(1, 3), min_size=2, max_size=3))
    agents, teams = [], {}
    for k, size in enumerate(sizes):
        teams[f"team_{k}"] = tuple(f"a{len(agents) + i}" for i in range(size))
        agents.extend(teams[f"team_{k}"])
    shared = draw(st.booleans())
    values = st.sampled_from([-1.0, 0.0, 0.5, 1.0])
    if shared:
        per_team = {team: draw(values) for team in teams}
        returns = {a: per_team[team] for team, members in teams.items() for a in members}
    else:
        returns = {a: draw(values) for a in agents}
    return teams, returns


@settings(max_examples=150, deadline=None)
@given(team_layouts())
def test_episode_team_results_over_layouts(layout):
    teams, returns = layout
    episode = Episode(returns, length=1, teams=teams)
    assert set(episode.team_returns) == set(teams) == set(episode.team_ranks)
    for team, members in teams.items():
        assert episode.team_returns[team] == pytest.approx(np.mean([returns[a] for a in members]))
    assert episode.team_ranks == ranks_from_returns(episode.team_returns)
    best = max(episode.team_returns.values())
    leaders = [t for t, r in episode.team_returns.items() if r == best]
    if len(leaders) == len(teams):
        assert episode.outcome == "draw" and episode.winning_teams == []
    else:
        assert episode.winning_teams == leaders
        assert episode.outcome == f"{', '.join(leaders)} {'wins' if len(leaders) == 1 else 'win'}"
    assert episode.ranks == ranks_from_returns(returns)  # per-agent fields stay


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=2, max_size=3), st.integers(0, 2**16))
def test_played_team_episodes_rank_sides(sizes, seed):
    env = TeamRockPaperScissors(team_sizes=sizes, rounds=2)
    sides = [Team([BeatMostCommonAgent() if i % 2 else RandomAgent() for i in range(n)]) for n in sizes]
    episode = play(env, sides, seed=seed)
    again = play(env, sides, seed=seed)
    assert episode.returns == again.returns
    assert episode.teams == env.teams
    for team, members in env.teams.items():
        assert {episode.returns[a] for a in members} == {episode.team_returns[team]}  # shared outcome
    expected = [t for t, r in episode.team_ranks.items() if r == 1]
    assert episode.outcome == (
        "draw" if len(expected) == len(sizes) else f"{', '.join(expected)} {'wins' if len(expected) == 1 else 'win'}"
    )


# --------------------------------------------------------------- agents side
def test_mixed_team_members_keep_their_own_interface_stacks():
    env = TeamRockPaperScissors(team_sizes=(2, 2))
    model = AgtItfWrapper(RandomAgent(seed=1), Flatten(OneHot()))  # a model trained on one-hot planes
    bot = BeatMostCommonAgent()  # reads the raw throws
    mixed = Team({"player_0": model, "player_2": bot}, name="mixed")
    episode = play(env, {"team_0": mixed, "team_1": Team([BeatMostCommonAgent(), BeatMostCommonAgent()])}, seed=4)
    assert model.agent.observation_space == spaces.Box(0.0, 1.0, (16,), np.float32)
    assert model.observation_space is env.observation_space("player_0")
    assert bot.observation_space is env.observation_space("player_2")
    assert episode.length == env.rounds and set(episode.team_returns) == {"team_0", "team_1"}
    assert str(mixed) == "mixed[AgtItfWrapper(RandomAgent, Flatten(OneHot())), BeatMostCommonAgent]"


def test_one_agent_per_side_and_teams_of_members_play_through_the_same_loop():
    env = TeamRockPaperScissors(team_sizes=(2, 2))
    combined = AgtItfWrapper(RandomAgent(seed=2), team_interface([OneHot(), OneHot()]))
    episode = play(
        env, {"team_0": combined, ("player_1", "player_3"): Team([RandomAgent(), BeatMostCommonAgent()])}, seed=1
    )
    assert combined.agent.action_space == spaces.MultiDiscrete([3, 3])
    assert episode.length == 3 and episode.outcome in ("draw", "team_0 wins", "team_1 wins")


def test_a_member_out_of_play_is_not_asked_and_hears_its_side_outcome_once():
    env = SidesEnv((2, 2))
    members = {agent: Recorder() for agent in env.possible_agents}
    sides = [Team([members[a] for a in ids]) for ids in env.teams.values()]
    episode = play(env, sides, seed=0)
    assert len(members["p0"].acts) == 1 and len(members["p2"].acts) == 3
    assert [len(m.dones) for m in members.values()] == [1, 1, 1, 1]
    assert members["p0"].dones == members["p2"].dones  # the side's final reward reaches the dropped member
    assert episode.outcome == "side_1 wins" and episode.team_returns == {"side_0": -1.0, "side_1": 1.0}


def test_team_errors_name_what_is_wrong():
    env = TeamRockPaperScissors(team_sizes=(2, 2))
    with pytest.raises(
        ValueError,
        match=r"duo\[RandomAgent\]: the team has 1 members, but the side it plays has 2 "
        r"seats \['player_0', 'player_2'\]",
    ):
        play(env, {"team_0": Team([RandomAgent()], name="duo"), "team_1": Team([RandomAgent(), RandomAgent()])})
    with pytest.raises(
        ValueError,
        match=r"the team's members are keyed \['player_0', 'player_1'\], but the side it "
        r"plays has agents \['player_0', 'player_2'\]",
    ):
        play(
            env,
            {
                "team_0": Team({"player_0": RandomAgent(), "player_1": RandomAgent()}),
                "team_1": Team([RandomAgent(), RandomAgent()]),
            },
        )
    with pytest.raises(TypeError, match="Team 'x': every member must be an arena.Agent, got str"):
        Team([RandomAgent(), "bot"], name="x")
    with pytest.raises(TypeError, match="a team needs at least one member"):
        Team([])
    with pytest.raises(UnknownAgentError, match=r"has no agent 'team_9'; expected one of .* or team \['team_0', "):
        play(env, {"team_9": Team([RandomAgent(), RandomAgent()])})
    with pytest.raises(ValueError, match=r"has 4 agents .* \(or 2 sides \['team_0', 'team_1'\]\), got 3 agents"):
        play(env, [Team([RandomAgent(), RandomAgent()]), RandomAgent(), RandomAgent()])


# -------------------------------------------------------------- policy mapping
def test_policy_mapping_shares_one_policy_object_between_seats():
    env = TeamRockPaperScissors(team_sizes=(2, 2))
    shared, other = Recorder(), Recorder()
    mapping = {"player_0": "shared", "player_2": "shared", "player_1": "other", "player_3": "other"}
    episode = play(env, {"shared": shared, "other": other}, seed=0, policy_mapping=mapping)
    assert shared.setups == shared.resets == 1 and len(shared.acts) == 2 * env.rounds
    assert len(shared.dones) == 2  # each seat's end is told once
    assert episode.outcome == "draw"
    by_team = play(
        env,
        {"team_0": RandomAgent(), "team_1": BeatMostCommonAgent()},
        seed=0,
        policy_mapping=lambda agent_id: "team_" + str(int(agent_id[-1]) % 2),
    )
    assert by_team.length == env.rounds


def test_policy_mapping_errors():
    env = TeamRockPaperScissors(team_sizes=(2, 2))
    with pytest.raises(
        ValueError,
        match=r"agent 'player_1' of .* is mapped to policy 'nope', which is not among "
        r"the policies \['p'\]",
    ):
        play(env, {"p": RandomAgent()}, policy_mapping=lambda a: "p" if a == "player_0" else "nope")
    with pytest.raises(ValueError, match=r"the policy mapping gives no policy for agent 'player_1'"):
        play(env, {"p": RandomAgent()}, policy_mapping={"player_0": "p"})
    with pytest.raises(UnknownAgentError, match=r"the policy mapping names agent 'p7', which .* does not have"):
        play(env, {"p": RandomAgent()}, policy_mapping={"p7": "p"})
    with pytest.raises(TypeError, match="agents must be a non-empty dict of policy name -> arena.Agent, got list"):
        play(env, [RandomAgent()] * 4, policy_mapping=lambda a: "p")
    with pytest.raises(ValueError, match=r"policy 'p' serves 'p0' and 'p1', whose spaces differ"):
        play(_Uneven(), {"p": RandomAgent()}, policy_mapping=lambda a: "p")


class _Uneven(SidesEnv):
    def __init__(self):
        super().__init__((1, 1))
        self.action_spaces = {"p0": spaces.Discrete(2), "p1": spaces.Discrete(3)}


def test_interface_identity_default_is_kept_for_members():
    # a member behind the identity interface sees exactly the raw space
    member = AgtItfWrapper(RandomAgent(), Interface())
    env = SidesEnv((2, 1))
    play(env, [Team([member, RandomAgent()]), Team([RandomAgent()])], seed=1)
    assert member.agent.observation_space == env.observation_space("p0")


def test_the_teams_page_example_runs():
    """docs/teams.md's Python block prints the sides and a team outcome; its commands are the ones shown."""
    import pathlib
    import re
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[2]
    section = (root / "docs" / "teams.md").read_text()
    code = re.search(r"```python\n(.*?)\n```", section, flags=re.S).group(1)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120)
    assert result.returncode == 0, result.stderr
    layout, outcome = result.stdout.splitlines()
    assert layout == "{'team_0': ('player_0', 'player_2'), 'team_1': ('player_1', 'player_3')}"
    assert re.match(r"(team_[01] wins|draw) \{'team_0': .*\} Box\(0\.0, 1\.0, \(16,\), float32\)$", outcome)
    assert "--agents 'duo=random+beat_most_common," in section and "--teammate beat_most_common" in section
