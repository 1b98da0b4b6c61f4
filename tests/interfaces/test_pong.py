"""Pong-2p from pixels: the pictures drawn from the vector are the env's own frames; moves; the return bonus."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

from arena.errors import InvalidActionError, SpaceMismatchError
from arena.testing import check_interface
from envs.pong import Pong2p
from envs.pong_agents import PongAIAgent
from interfaces.pong import PongFrames, PongHitBonus, PongMoves


@pytest.mark.parametrize("cls", [PongFrames, PongMoves, PongHitBonus])
def test_contract(cls: type) -> None:
    for instance, observation_space, action_space in cls.contract_examples():
        check_interface(instance, observation_space, action_space, examples=10, require_masks=False)


def test_pictures_from_the_vector_match_the_envs_rendered_frames() -> None:
    vector, frame = Pong2p(rounds=2), Pong2p(rounds=2, observation="frame")
    drawn, cut = PongFrames(scale=4, frames=2), PongFrames(scale=4, frames=2)
    drawn.setup(vector.observation_space("player_0"), vector.action_space("player_0"))
    cut.setup(frame.observation_space("player_0"), frame.action_space("player_0"))
    first, second = vector.reset(seed=4)[0], frame.reset(seed=4)[0]
    rng = np.random.default_rng(0)
    differences = []
    for _ in range(300):
        for agent in first:  # both seats: player_1's view is mirrored by the env
            a, b = drawn.picture(first[agent]).astype(int), cut.picture(second[agent]).astype(int)
            differences.append(np.abs(a - b).max())
            assert np.abs(a.sum() - b.sum()) <= 255  # the same shapes, within a pixel's rounding
        actions = {agent: int(rng.integers(6)) for agent in first}
        first, second = vector.step(actions)[0], frame.step(actions)[0]
        if not first:
            break
    assert max(differences) <= 64 and np.mean(differences) < 16  # the env rounds positions to whole pixels


def test_stack_keeps_the_last_frames_oldest_first() -> None:
    env = Pong2p(rounds=1)
    itf = PongFrames(scale=4, frames=3)
    itf.setup(env.observation_space("player_0"), env.action_space("player_0"))
    obs, _ = env.reset(seed=0)
    first = itf.transform_reset(obs["player_0"])
    assert first.shape == (3, 40, 40) and (first[0] == first[2]).all()
    obs = env.step({"player_0": 0, "player_1": 0})[0]
    second = itf.transform_observation(obs["player_0"])
    assert (second[:2] == first[1:]).all() and (second[2] == itf.picture(obs["player_0"])).all()
    assert not (second[2] == first[2]).all()  # the ball moved


def test_moves_and_bad_input() -> None:
    itf = PongMoves()
    itf.setup(spaces.Box(0.0, 1.0, (8,), np.float32), spaces.Discrete(6))
    assert [itf.transform_action(a) for a in range(3)] == [0, 2, 3]
    with pytest.raises(InvalidActionError, match=r"PongMoves\(\): action 3 is not in Discrete\(3\)"):
        itf.transform_action(3)
    with pytest.raises(SpaceMismatchError, match=r"needs pong_2p's Discrete\(6\) actions, got Discrete\(4\)"):
        itf.setup(spaces.Box(0.0, 1.0, (8,), np.float32), spaces.Discrete(4))
    with pytest.raises(ValueError, match="PongFrames: scale must divide 160, got 3"):
        PongFrames(scale=3)
    with pytest.raises(SpaceMismatchError, match=r"needs pong_2p's vector observation Box\(8,\) or its grey frame"):
        PongFrames().setup(spaces.Box(0, 255, (50, 50, 1), np.uint8), spaces.Discrete(6))


def test_hit_bonus_pays_each_return_of_the_agents_paddle() -> None:
    env = Pong2p(rounds=3)
    bonus = PongHitBonus(bonus=0.05)
    bonus.setup(env.observation_space("player_0"), env.action_space("player_0"))
    players = {agent: PongAIAgent() for agent in env.possible_agents}
    for agent, player in players.items():
        player.setup(env.observation_space(agent), env.action_space(agent))
    obs, _ = env.reset(seed=1)
    bonus.transform_reset(obs["player_0"])
    returns, paid = 0, 0.0
    while obs:
        before = env.state.ball_vx
        obs, rewards, *_ = env.step({agent: players[agent].act(o) for agent, o in obs.items()})
        returns += int(before < 0 < env.state.ball_vx and env.state.ball_x < 40)  # the left paddle (not a serve)
        paid += bonus.transform_reward(rewards["player_0"]) - rewards["player_0"]
        if obs:
            bonus.transform_observation(obs["player_0"])
    assert returns > 3  # pong_ai returns the ball
    assert paid == pytest.approx(0.05 * returns)


@pytest.mark.parametrize(
    "options, shown",
    [
        ({"bonus": 0.05, "steep": 0.1}, "PongHitBonus(bonus=0.05, steep=0.1)"),
        ({"bonus": 0.05, "edge": 0.5, "edge_from": 0.3}, "PongHitBonus(bonus=0.05, edge=0.5, edge_from=0.3)"),
    ],
)
def test_steep_and_edge_bonuses_pay_each_return_by_how_steep_it_leaves(options, shown) -> None:
    env = Pong2p(rounds=3)
    bonus = PongHitBonus(**options)
    bonus.setup(env.observation_space("player_0"), env.action_space("player_0"))
    players = {agent: PongAIAgent() for agent in env.possible_agents}
    for agent, player in players.items():
        player.setup(env.observation_space(agent), env.action_space(agent))
    obs, _ = env.reset(seed=1)
    bonus.transform_reset(obs["player_0"])
    owed, paid, edges = 0.0, 0.0, 0
    while obs:
        before = env.state.ball_vx
        obs, rewards, *_ = env.step({agent: players[agent].act(o) for agent, o in obs.items()})
        if before < 0 < env.state.ball_vx and env.state.ball_x < 40:
            steepness = abs(env.state.ball_vy) / env.ball_spin
            edges += steepness >= options.get("edge_from", 0.88)
            owed += 0.05 + options.get("steep", 0.0) * steepness
            owed += options.get("edge", 0.0) * (steepness >= options.get("edge_from", 0.88))
        if obs:
            bonus.transform_observation(obs["player_0"])
        paid += bonus.transform_reward(rewards["player_0"]) - rewards["player_0"]
    assert owed > 0.05 * 4  # returns, some of them steep
    assert "edge" not in options or 0 < edges  # some returns off the edge, paid more
    assert paid == pytest.approx(owed)
    assert str(bonus) == shown


@pytest.mark.parametrize(
    "options, message",
    [
        ({"steep": float("nan")}, "PongHitBonus: steep must be a finite number, got nan"),
        ({"edge": float("inf")}, "PongHitBonus: edge must be a finite number, got inf"),
        ({"edge_from": 0.0}, r"PongHitBonus: edge_from must be in \(0, 1\], got 0.0"),
    ],
)
def test_bad_bonus_options_are_refused(options, message) -> None:
    with pytest.raises(ValueError, match=message):
        PongHitBonus(**options)
