"""Purpose-built envs and agents for the training-bridge tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces

from arena import Agent, MultiAgentEnv


@dataclass
class Step:
    """One scripted env step: who acts, the rewards it hands out, who leaves after it."""

    acting: tuple[str, ...]
    rewards: dict[str, float] = field(default_factory=dict)
    terminate: tuple[str, ...] = ()
    truncate: tuple[str, ...] = ()


class ScriptedEnv(MultiAgentEnv):
    """Plays a fixed script of steps (turns, simultaneous moves, repeats, early exits).

    Observation: the index of the step about to be played. Action: ``Discrete(2)``;
    the mask allows action 1 only on odd steps. Rewards, terminations and truncations
    are the script's, so a test knows exactly what each agent was given and when.
    """

    def __init__(self, script: list[Step], agents: tuple[str, ...] = ("a", "b", "c")) -> None:
        self.script = script
        self.possible_agents = list(agents)
        self.agents = []
        self.observation_spaces = {a: spaces.Discrete(len(script) + 1) for a in agents}
        self.action_spaces = {a: spaces.Discrete(2) for a in agents}
        self._acting: tuple[str, ...] | None = None
        self.received: list[dict[str, Any]] = []

    def _mask(self) -> np.ndarray:
        return np.array([1, self._t % 2], dtype=np.int8)

    def _ask(self) -> tuple[dict, dict]:
        acting = self.script[self._t].acting
        self._acting = acting
        return {a: self._t for a in acting}, {a: {"action_mask": self._mask(), "step": self._t} for a in acting}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.agents = list(self.possible_agents)
        self._t = 0
        self.received = []
        return self._ask()

    def step(self, actions):
        self.check_actions(actions, self._acting, {a: self._mask() for a in self._acting or ()})
        self.received.append(dict(actions))
        step = self.script[self._t]
        rewards = {a: float(r) for a, r in step.rewards.items()}
        terminations = {a: a in step.terminate for a in self.agents}
        truncations = {a: a in step.truncate for a in self.agents}
        self.agents = [a for a in self.agents if a not in step.terminate and a not in step.truncate]
        self._t += 1
        if not self.agents:
            self._acting = None
            return {}, rewards, terminations, truncations, {}
        observations, infos = self._ask()
        return observations, rewards, terminations, truncations, infos


class LedgerAgent(Agent):
    """Acts with the first legal action and keeps a ledger of every reward it hears."""

    def __init__(self) -> None:
        self.act_rewards: list[float] = []
        self.done_rewards: list[float] = []
        self.observations: list[Any] = []

    def reset(self, *, seed: int | None = None) -> None:
        self.act_rewards, self.done_rewards, self.observations = [], [], []

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        self.observations.append(observation)
        self.act_rewards.append(reward)
        return 0 if action_mask is None else int(np.flatnonzero(action_mask)[0])

    def done(self, reward: float, info: dict[str, Any]) -> None:
        self.done_rewards.append(reward)


class FixedAgent(Agent):
    """Plays a fixed sequence of choices, each an index into the legal actions (cycling).

    It never looks at its observation, so its moves cannot depend on private information.
    """

    def __init__(self, choices: list[int] | None = None, action: int | None = None) -> None:
        self.choices = choices or [0]
        self.action = action
        self._turn = 0

    def reset(self, *, seed: int | None = None) -> None:
        self._turn = 0

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        if self.action is not None:
            return self.action
        legal = np.flatnonzero(action_mask) if action_mask is not None else np.arange(self.action_space.n)
        choice = self.choices[self._turn % len(self.choices)]
        self._turn += 1
        return int(legal[choice % len(legal)])


class UnevenSpacesEnv(MultiAgentEnv):
    """Two seats with different observation spaces (for the seat-space check)."""

    def __init__(self) -> None:
        self.possible_agents = ["x", "y"]
        self.agents = []
        self.observation_spaces = {"x": spaces.Discrete(3), "y": spaces.Discrete(4)}
        self.action_spaces = {"x": spaces.Discrete(2), "y": spaces.Discrete(2)}
