"""EnvItfWrapper's edges: whose error is whose, and the env's documented extras forwarded."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena import ArenaError, EnvItfWrapper, Interface, InterfaceError, InvalidActionError, MultiAgentEnv
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


def _nest_once(observation):
    if isinstance(observation, tuple):
        raise RuntimeError("nested twice")
    return (observation,)


def _refuse_raw(observation):
    if not isinstance(observation, tuple):
        raise RuntimeError("a raw observation")
    return observation


class NestOnce(Interface):
    """One plain function as the hook of every level of this class (``staticmethod``)."""

    observation = staticmethod(_nest_once)


class RefuseRaw(Interface):
    observation = staticmethod(_refuse_raw)


@pytest.mark.parametrize("shape", ["outer raises", "inner raises"])
def test_the_failing_level_is_named_when_levels_share_one_hook_function(shape):
    """The step's loops find the level from the hook that raised: two levels of one class share the
    function, and the error still names the one that raised, not the other."""
    level = NestOnce if shape == "outer raises" else RefuseRaw
    inner = level()
    outer = level(inner)
    env = EnvItfWrapper(envs.make("tic_tac_toe"), {"player_1": outer})
    env.reset(seed=0)
    with pytest.raises(InterfaceError, match="raised RuntimeError") as info:
        env.step({"player_0": 0})
    assert info.value.interface is (outer if shape == "outer raises" else inner)


class _RecordingEnv(MultiAgentEnv):
    """Two agents act every step with Discrete(5) actions; it keeps the raw actions it receives."""

    def __init__(self) -> None:
        self.possible_agents = self.agents = ["a", "b"]
        self.observation_spaces = {agent: spaces.Box(-9.0, 9.0, (2,), np.float32) for agent in self.agents}
        self.action_spaces = {agent: spaces.Discrete(5) for agent in self.agents}
        self.received: dict = {}

    def _observations(self) -> dict:
        return {agent: np.ones(2, np.float32) for agent in self.agents}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self._observations(), {
            agent: {"action_mask": np.array([1, 1, 0, 1, 1], np.int8)} for agent in self.agents
        }

    def step(self, actions):
        self.received = dict(actions)
        flags = dict.fromkeys(self.agents, False)
        infos = {agent: {"action_mask": np.array([1, 0, 1, 1, 1], np.int8)} for agent in self.agents}
        return self._observations(), dict.fromkeys(self.agents, 1.0), flags, dict(flags), infos


class _Mirror(Interface):
    """Reverses actions and masks, and doubles observations within a doubled space."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        self.observation_space = spaces.Box(2 * box.low, 2 * box.high, box.shape, box.dtype)

    def observation(self, observation):
        return 2 * observation

    def action(self, action):
        return 4 - int(action)

    def action_mask(self, mask):
        return mask[::-1].copy()


_ACTIONS = st.one_of(
    st.integers(-3, 8),
    st.booleans(),
    st.integers(-3, 8).map(np.int64),
    st.integers(0, 4).map(lambda n: np.array(n)),
    st.floats(-1.0, 5.0),
)


@settings(max_examples=60, deadline=None)
@given(_ACTIONS, _ACTIONS, st.integers(1, 3))
def test_the_wrapper_translates_like_the_stack_and_its_outputs_lie_in_their_spaces(action_a, action_b, depth):
    """The wrapper's written-out per-step loops agree with the stack's own transform_* on every value."""
    stack: Interface = _Mirror()
    for _ in range(depth - 1):
        stack = _Mirror(stack)
    env = EnvItfWrapper(_RecordingEnv(), stack)
    observations, infos = env.reset(seed=0)
    actions = {"a": action_a, "b": action_b}
    expected = {}
    for agent, action in actions.items():
        try:
            expected[agent] = env.interfaces[agent].transform_action(action)
        except InvalidActionError:
            expected = None
            break
    if expected is None:
        with pytest.raises(InvalidActionError):
            env.step(actions)
        return
    observations, _, _, _, infos = env.step(actions)
    assert env.unwrapped.received == expected
    for agent in ("a", "b"):
        itf = env.interfaces[agent]
        assert itf.observation_space.contains(observations[agent])
        mask = infos[agent]["action_mask"]
        assert itf.action_space.contains(int(np.flatnonzero(mask)[0]))
        # A legal model action maps to a raw action the raw mask allows.
        raw_mask = np.array([1, 0, 1, 1, 1], np.int8)
        assert all(raw_mask[itf.transform_action(int(i))] for i in np.flatnonzero(mask))
