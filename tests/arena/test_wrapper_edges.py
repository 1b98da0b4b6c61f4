"""EnvItfWrapper's edges: whose error is whose, and the env's documented extras forwarded."""

from __future__ import annotations

import pytest

import envs
from arena import ArenaError, EnvItfWrapper, Interface, InterfaceError, InvalidActionError
from interfaces import DiscreteToMultiDiscrete, EgoBoard


class BrokenObservation(Interface):
    def observation(self, observation):
        raise RuntimeError("no features today")


class BrokenAction(Interface):
    def action(self, action):
        raise ZeroDivisionError("bad table")

    def action_mask(self, mask):
        return mask


class CrashingEnv(type(envs.make("tic_tac_toe"))):
    def step(self, actions):
        raise RuntimeError("engine lost")


def test_an_interface_error_names_the_interface_and_what_it_was_doing():
    env = EnvItfWrapper(envs.make("tic_tac_toe"), EgoBoard())
    env = EnvItfWrapper(env, {"player_1": BrokenObservation()})
    observations, _ = env.reset(seed=0)
    with pytest.raises(
        InterfaceError,
        match=r"interface BrokenObservation\(\) raised RuntimeError while "
        r"transforming the env's step: no features today",
    ) as info:
        env.step({"player_0": 0})
    assert isinstance(info.value.interface, BrokenObservation)
    acting = EnvItfWrapper(envs.make("tic_tac_toe"), BrokenAction())
    acting.reset(seed=0)
    with pytest.raises(
        InterfaceError,
        match=r"interface BrokenAction\(\) raised ZeroDivisionError while "
        r"translating actions: bad table",
    ):
        acting.step({"player_0": 0})


def test_an_env_error_stays_the_envs_own():
    env = EnvItfWrapper(CrashingEnv(), EgoBoard())
    env.reset(seed=0)
    with pytest.raises(RuntimeError, match="^engine lost$"):
        env.step({"player_0": 0})
    wrapped = EnvItfWrapper(envs.make("tic_tac_toe"), EgoBoard())
    wrapped.reset(seed=0)
    with pytest.raises(
        InvalidActionError,
        match=r"^<TicTacToe>: action for 'player_0': action must lie in "
        r"Discrete\(9\), got 12",
    ):
        wrapped.step({"player_0": 12})  # EgoBoard keeps raw actions: the env's own words


def test_documented_extras_are_forwarded():
    env = EnvItfWrapper(
        envs.make("tic_tac_toe"), {"player_0": EgoBoard(), "player_1": DiscreteToMultiDiscrete(nvec=[3, 3])}
    )
    assert env.action_names("player_0") == envs.make("tic_tac_toe").action_names("player_0")
    with pytest.raises(
        ArenaError,
        match=r"the interface DiscreteToMultiDiscrete\(.*\) of 'player_1' changes the "
        r"action space \(Discrete\(9\) -> MultiDiscrete\(\[3 3\]\)\)",
    ):
        env.action_names("player_1")
    assert env.teams is None and env.render_mode == envs.make("tic_tac_toe").render_mode
    assert isinstance(env.render(), (str, type(None)))
    kuhn = envs.make("kuhn_poker")
    poker = EnvItfWrapper(envs.make("kuhn_poker"), Interface())
    observations, _ = poker.reset(seed=0)
    kuhn.reset(seed=0)
    agent = next(iter(observations))
    assert poker.observation_text(agent, observations[agent]) == kuhn.observation_text(agent, observations[agent])
    snake = EnvItfWrapper(envs.make("snake"))
    snake_observations, _ = snake.reset(seed=0)
    agent = next(iter(snake_observations))
    assert snake.observation_text(agent, snake_observations[agent]) is None  # None where the env has none


def _no_features(observation):
    raise RuntimeError("no features today")


class BrokenByAFunction(Interface):
    """Its hook is a plain function: no frame on the traceback has the interface as ``self``."""

    observation = staticmethod(_no_features)


def test_the_failing_level_is_named_even_when_no_frame_holds_it():
    env = EnvItfWrapper(envs.make("tic_tac_toe"), {"player_1": BrokenByAFunction(EgoBoard())})
    env.reset(seed=0)
    with pytest.raises(
        InterfaceError, match=r"interface BrokenByAFunction\(EgoBoard\(\)\) raised RuntimeError"
    ) as info:
        env.step({"player_0": 0})
    assert isinstance(info.value.interface, BrokenByAFunction)
