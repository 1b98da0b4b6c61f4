"""MuJoCo soccer on the real physics: spaces, simultaneous steps, goals, seeds, copies, pictures."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

pytest.importorskip("dm_control")

from gymnasium import spaces  # noqa: E402

import envs  # noqa: E402
from arena import ArenaError, InvalidActionError, RandomAgent, ResetNeeded, WrongAgentsError, play  # noqa: E402
from arena.testing import check_env  # noqa: E402
from arena.testing.env_checker import values_equal  # noqa: E402
from arena.tournament import Execution, TournamentRules
from envs.soccer import Soccer  # noqa: E402


# Building a dm_control soccer env costs about a second: the tests share two.
@pytest.fixture(scope="module")
def duel() -> Soccer:
    return Soccer(team_size=1, time_limit=0.25, render_mode="rgb_array", render_height=120)


@pytest.fixture(scope="module")
def team() -> Soccer:
    return envs.make("soccer", team_size=2, time_limit=0.25)


def _still(env: Soccer) -> dict[str, np.ndarray]:
    return {agent: np.zeros(3) for agent in env.agents}


def test_players_teams_and_spaces(team: Soccer) -> None:
    env = team
    assert env.possible_agents == ["home_0", "home_1", "away_0", "away_1"]
    assert env.teams == {"home": ("home_0", "home_1"), "away": ("away_0", "away_1")}
    assert env.action_space("away_1") == spaces.Box(-1.0, 1.0, (3,), np.float64)
    space = env.observation_space("home_0")
    assert isinstance(space, spaces.Dict) and list(space.spaces) == sorted(space.spaces)
    assert all(isinstance(box, spaces.Box) and box.dtype == np.float64 for box in space.spaces.values())
    assert space["ball_ego_position"].shape == (3,) and space["opponent_goal_mid"].shape == (3,)
    assert {"teammate_0_ego_position", "opponent_1_ego_position"} <= set(space.spaces)
    assert space["prev_action"] == spaces.Box(-1.0, 1.0, (3,), np.float64)
    observations, infos = env.reset(seed=3)
    assert set(observations) == set(env.possible_agents)  # everyone acts, every step
    assert all(space.contains(observations[agent]) for agent in env.possible_agents)
    assert infos["away_0"] == {"score": (0, 0), "time": 0.0}
    observations, rewards, terms, truncs, infos = env.step(_still(env))
    assert set(observations) == set(env.possible_agents) and rewards == dict.fromkeys(env.possible_agents, 0.0)
    assert infos["home_1"]["time"] == 0.025


def test_the_contract_holds(duel: Soccer) -> None:
    check_env(duel, episodes=2)


def test_bad_actions_and_options_are_refused_by_name(duel: Soccer) -> None:
    fresh = Soccer(team_size=1, time_limit=0.25)
    with pytest.raises(ResetNeeded, match=r"<Soccer 1v1>: step\(\) called with no episode running"):
        fresh.step({})
    with pytest.raises(ArenaError, match=r"<Soccer 1v1>: render\(\) needs a reset\(\) first"):
        fresh.render_mode = "rgb_array"
        fresh.render()
    fresh.render_mode = None
    assert fresh.render() is None
    duel.reset(seed=0)
    with pytest.raises(WrongAgentsError, match=r"expected actions for exactly \['away_0', 'home_0'\]"):
        duel.step({"home_0": np.zeros(3)})
    with pytest.raises(InvalidActionError, match=r"<Soccer 1v1>: action for 'home_0' must lie in Box\(-1.0, 1.0"):
        duel.step({"home_0": np.array([2.0, 0, 0]), "away_0": np.zeros(3)})
    with pytest.raises(InvalidActionError, match="action for 'away_0'"):
        duel.step({"home_0": np.zeros(3), "away_0": np.array([np.nan, 0, 0])})
    duel.step(_still(duel))  # a refused step changed nothing
    for options, message in [
        ({"team_size": 4}, "team_size must be 1 to 3, got 4"),
        ({"team_size": 0}, "team_size must be a positive integer, got 0"),
        ({"time_limit": -1.0}, "time_limit must be a positive number, got -1.0"),
        ({"walker": "robot"}, "walker must be one of ['ant', 'boxhead', 'humanoid'], got 'robot'"),
        ({"terminate_on_goal": 1}, "terminate_on_goal must be True or False, got 1"),
        ({"render_mode": "human"}, "render_mode must be None, 'rgb_array' or 'camera'"),
        ({"render_height": 10**6}, "render_height must be 48 to 2160 pixels, got 1000000"),
    ]:
        with pytest.raises(ValueError, match=f"^Soccer: {__import__('re').escape(message)}"):
            Soccer(**options)


def _score_for(env: Soccer, side: str) -> None:
    """Put the ball inside the goal that ``side`` attacks, at rest."""
    dm = env.dm_env
    goal = dm.task.arena.away_goal if side == "home" else dm.task.arena.home_goal
    centre = (np.asarray(goal.lower) + np.asarray(goal.upper)) / 2
    dm.task.ball.set_pose(dm.physics, position=[centre[0], centre[1], 0.5])
    dm.task.ball.set_velocity(dm.physics, velocity=np.zeros(3), angular_velocity=np.zeros(3))


@pytest.mark.parametrize("side", ["home", "away"])
def test_a_goal_ends_the_episode_with_the_scoring_side_plus_one(team: Soccer, side: str) -> None:
    env = team
    env.reset(seed=1)
    _score_for(env, side)
    observations, rewards, terms, truncs, infos = env.step(_still(env))
    other = "away" if side == "home" else "home"
    assert observations == {} and env.agents == []
    assert {agent: rewards[agent] for agent in env.teams[side]} == dict.fromkeys(env.teams[side], 1.0)
    assert {agent: rewards[agent] for agent in env.teams[other]} == dict.fromkeys(env.teams[other], -1.0)
    assert all(terms.values()) and not any(truncs.values())
    assert infos["home_0"]["score"] == ((1, 0) if side == "home" else (0, 1)) == env.score


def test_without_terminate_on_goal_play_goes_on_and_the_time_limit_truncates() -> None:
    env = Soccer(team_size=1, time_limit=0.25, terminate_on_goal=False)
    env.reset(seed=2)
    _score_for(env, "away")
    observations, rewards, terms, truncs, infos = env.step(_still(env))
    assert rewards == {"home_0": -1.0, "away_0": 1.0} and set(observations) == {"home_0", "away_0"}
    assert not any(terms.values()) and infos["away_0"]["score"] == (0, 1)
    steps = 1
    while observations:
        observations, rewards, terms, truncs, infos = env.step(_still(env))
        steps += 1
    assert steps == 10 and all(truncs.values()) and not any(terms.values())  # 0.25 s of 0.025 s steps
    assert env.score == (0, 1)


def test_same_seed_same_match_and_another_seed_another(duel: Soccer) -> None:
    def match(seed: int) -> list:
        observations, _ = duel.reset(seed=seed)
        trace, rng = [observations], np.random.default_rng(0)
        while observations:
            observations, *rest = duel.step({a: rng.uniform(-1, 1, 3) for a in duel.agents})
            trace.append((observations, rest[0]))
        return trace

    assert values_equal(match(5), match(5))
    assert not values_equal(match(5), match(6))
    episode = play(duel, [RandomAgent(), RandomAgent()], seed=4)
    assert episode.truncated and episode.outcome == "draw" and episode.length == 10


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_copies_continue_the_match_exactly(duel: Soccer, how: str) -> None:
    observations, _ = duel.reset(seed=7)
    for _ in range(3):
        observations, *_ = duel.step({a: np.full(3, 0.5) for a in duel.agents})
    twin = copy.deepcopy(duel) if how == "deepcopy" else pickle.loads(pickle.dumps(duel))
    assert twin is not duel and twin.dm_env is not duel.dm_env
    actions = {"home_0": np.array([1.0, -0.3, 0.2]), "away_0": np.array([-0.5, 0.9, 1.0])}
    assert values_equal(duel.step(actions), twin.step(actions))


def test_top_down_picture_shows_pitch_teams_and_ball(duel: Soccer) -> None:
    env = duel
    env.reset(seed=0)
    picture = env.render()
    assert picture.shape == (120, 160, 3) and picture.dtype == np.uint8
    colours = {tuple(c) for c in picture.reshape(-1, 3)}
    from envs.soccer.render import COLORS

    assert {COLORS["grass"], COLORS["home"], COLORS["away"], COLORS["ball"]} <= colours


def test_camera_rendering_without_opengl_says_what_to_install(duel: Soccer, monkeypatch) -> None:
    env = duel
    env.reset(seed=0)
    monkeypatch.setattr(env, "render_mode", "camera")

    def no_gl(physics, **kwargs):
        raise RuntimeError("no OpenGL context")

    monkeypatch.setattr(type(env.dm_env._physics), "render", no_gl)  # as without EGL/OSMesa
    with pytest.raises(
        ArenaError,
        match=r"render_mode='camera' needs MuJoCo's OpenGL rendering.*EGL.*OSMesa.*"
        r"MUJOCO_GL=egl.*render_mode='rgb_array'",
    ):
        env.render()


def _set_up_attack(env: Soccer, side: str) -> None:
    """Ball 12 m in front of the goal ``side`` attacks, its player 4 m behind the ball."""
    dm = env.dm_env
    goal = dm.task.arena.away_goal if side == "home" else dm.task.arena.home_goal
    x, sign = (goal.lower[0] + goal.upper[0]) / 2, 1 if side == "home" else -1
    dm.task.ball.set_pose(dm.physics, position=[x - sign * 12, 0, 0.5])
    dm.task.players[env.possible_agents.index(f"{side}_0")].walker.set_pose(dm.physics, position=[x - sign * 16, 0, 0])


@pytest.mark.parametrize("side", ["home", "away"])
def test_the_chaser_scores_from_either_end_where_standing_still_does_not(side: str) -> None:
    from envs.soccer.agents import SoccerChaserAgent

    env = Soccer(team_size=1, time_limit=12.0)
    other = "away_0" if side == "home" else "home_0"

    def attack(player) -> tuple[dict, int]:
        observations, _ = env.reset(seed=0)
        _set_up_attack(env, side)
        keeper = RandomAgent(seed=1)
        for agent, who in ((player, f"{side}_0"), (keeper, other)):
            agent.setup(env.observation_space(who), env.action_space(who))
        steps = 0
        while observations:
            observations, rewards, *_ = env.step(
                {f"{side}_0": player.act(observations[f"{side}_0"]), other: keeper.act(observations[other])}
            )
            steps += 1
        return rewards, steps

    rewards, steps = attack(SoccerChaserAgent())
    assert rewards == {f"{side}_0": 1.0, other: -1.0} and steps < 480  # a goal before the 12 s limit
    if side == "home":  # the control: the same set-up with a player that stands still ends 0-0

        class Still(RandomAgent):
            def act(self, observation, action_mask=None, reward=0.0):
                return np.zeros(3)

        assert attack(Still())[0] == {f"{side}_0": 0.0, other: 0.0}


def test_the_chaser_needs_the_soccer_features() -> None:
    from arena import SpaceMismatchError
    from envs.soccer.agents import SoccerChaserAgent

    with pytest.raises(SpaceMismatchError, match=r"SoccerChaserAgent: needs the soccer env's raw observation dict"):
        SoccerChaserAgent().setup(spaces.Box(0, 1, (3,)), spaces.Box(-1, 1, (3,)))
    with pytest.raises(ValueError, match="SoccerChaserAgent: push_speed must be a positive number, got 0"):
        SoccerChaserAgent(push_speed=0)


def test_with_support_only_the_better_placed_teammate_chases() -> None:
    """The teammate nearer the ball (behind it) chases; the other waits ``support`` metres behind the ball."""
    from envs.soccer.agents import SoccerChaserAgent

    box = spaces.Box(-np.inf, np.inf, (3,))
    keys = ("ball_ego_position", "opponent_goal_mid", "teammate_0_ego_position")
    ball, goal = np.array([-5.0, 0, 0]), np.array([-30.0, 0, 0])  # lined up: the ball 5 m ahead, the goal beyond

    def act(teammate: list[float], **options) -> list[float]:
        agent = SoccerChaserAgent(**options)
        agent.setup(spaces.Dict(dict.fromkeys(keys, box)), spaces.Box(-1, 1, (3,), np.float64))
        features = {"ball_ego_position": ball, "opponent_goal_mid": goal, "teammate_0_ego_position": np.array(teammate)}
        return agent.act(features).round(2).tolist()

    charge = [0.7, 0.0, -1.0]
    assert act([-4.0, 0, 0]) == charge  # no support: it chases whatever its teammate does
    assert act([-4.0, 0, 0], support=5.0) == [0.0, 0.0, -1.0]  # its teammate is nearer: it waits where it is
    assert act([-4.0, 0, 0], support=8.0)[0] < 0  # ... or backs off to 8 m behind the ball
    assert act([-7.0, 0, 0], support=8.0) == charge  # a nearer teammate on the goal side has to go round first
    assert act([-6.0, 0.5, 0], support=8.0, behind=0.5)[0] < 0  # ... unless going round is short
    with pytest.raises(ValueError, match="SoccerChaserAgent: support must be None or a positive number of metres"):
        SoccerChaserAgent(support=0)


def test_the_chaser_beats_random_in_a_small_seat_swapped_match() -> None:
    """Two 20 s games of 2v2 on one fixed seed, each end played by each side (a duplicate pair).

    The full-length match is bench/soccer_match.py (docs/performance.md: 15-15-0 over 30
    games); here the chaser must win at least once and never lose. MuJoCo replays a seed
    bit for bit on one build, so the result is fixed for a given install (this pair: a draw
    and a win; the next pair of seed 0 is two draws, so two games, not four, hold the check).
    """
    from arena.tournament import run_tournament

    result = run_tournament(
        rules=TournamentRules.make(
            "soccer", ["soccer_chaser", "random"], games=2, seed=0, env_kwargs={"team_size": 2, "time_limit": 20.0}
        ),
        execution=Execution.make("inline"),
    )
    sides = [{g.seats["home_0"], g.seats["away_0"]} == {"soccer_chaser", "random"} for g in result.games]
    assert all(sides) and sorted(g.seats["home_0"] for g in result.games) == ["random", "soccer_chaser"]
    stats = result.pairings["soccer_chaser", "random"]
    assert stats.games == 2 and stats.forfeits == 0 and result.errors == []
    assert stats.wins >= 1 and stats.losses == 0, stats


def test_the_ant_walker_has_its_own_actuators_and_keeps_the_contract() -> None:
    env = Soccer(team_size=1, walker="ant", time_limit=0.1)
    assert env.action_space("home_0") == spaces.Box(-1.0, 1.0, (8,), np.float64)  # eight joint motors
    assert env.observation_space("away_0")["prev_action"].shape == (8,)
    check_env(env, episodes=1)
