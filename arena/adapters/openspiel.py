"""OpenSpiel games as arena envs: ``from_openspiel("kuhn_poker")``.

Needs the ``openspiel`` extra (``pip install 'arena-marl[openspiel]'``); importing this
module without it raises :class:`~arena.errors.MissingDependencyError`.

Example:
    >>> from arena import RandomAgent, play
    >>> env = from_openspiel("kuhn_poker")
    >>> env.possible_agents
    ['player_0', 'player_1']
    >>> episode = play(env, [RandomAgent(), RandomAgent()], seed=0)
    >>> sum(episode.returns.values())
    0.0
"""

from __future__ import annotations

import difflib
from bisect import bisect_right
from collections.abc import Mapping
from itertools import accumulate
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.adapters._common import require
from arena.env import AgentID, MultiAgentEnv
from arena.errors import ArenaError, InvalidTypeError, InvalidValueError, ResetNeeded

pyspiel = require("pyspiel", "openspiel", __name__)

__all__ = ["from_openspiel", "OpenSpielEnv"]

_OBSERVATION_KINDS = ("observation", "information_state")


class OpenSpielEnv(MultiAgentEnv):
    """An OpenSpiel game as an arena env (built by :func:`from_openspiel`).

    * **Agents**: ``player_0`` ... ``player_{n-1}`` for OpenSpiel players 0 ... n-1.
    * **Turns**: at a decision node the current player acts; at a simultaneous node every
      player with legal actions acts at once (one arena step); chance nodes are sampled
      inside the env with ``np_random``, so ``reset(seed=...)`` fixes the whole episode
      for given actions. (Games whose chance mode is ``SAMPLED_STOCHASTIC`` draw inside
      OpenSpiel and are reproducible only through their own ``rng_seed`` parameter.)
    * **Observation** (only for the agents that act): ``Box(-inf, inf, shape, float32)``
      holding the player's ``observation_tensor`` or, with
      ``observation="information_state"``, its ``information_state_tensor``.
    * **Action**: ``Discrete(game.num_distinct_actions())``;
      ``infos[agent]["action_mask"]`` marks ``legal_actions(player)``.
    * **Rewards**: every step gives each player the change of ``state.returns()`` over
      that step (its actions and the chance events after them), so each agent's summed
      rewards equal ``returns()`` at the end. (Reading ``state.rewards()`` after every
      transition counts some games twice — 2048 repeats a move's reward after the chance
      tile — and reading it only after moves misses rewards that chance events produce,
      such as the dealer's draws in blackjack.)
    * **End**: a terminal state terminates every player.

    Args:
        game: a ``pyspiel.Game``.
        observation: ``"observation"`` or ``"information_state"``; ``None`` picks the
            observation tensor when the game has one, else the information state tensor.
        render_mode: ``"ansi"`` to render the state's text.

    Raises:
        ArenaError: the game has neither tensor (or not the one asked for), or is a
            mean-field game.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game: Any, observation: str | None = None, render_mode: str | None = None) -> None:
        if render_mode not in (None, "ansi"):
            raise InvalidValueError(f"from_openspiel: render_mode must be None or 'ansi', got {render_mode!r}")
        game_type = game.get_type()
        self.game = game
        self.env_name = f"openspiel:{game_type.short_name}"
        self.metadata = {"render_modes": ["ansi"], "name": game_type.short_name}
        self.render_mode = render_mode
        dynamics = game_type.dynamics
        if dynamics not in (pyspiel.GameType.Dynamics.SEQUENTIAL, pyspiel.GameType.Dynamics.SIMULTANEOUS):
            raise ArenaError(
                f"from_openspiel: {game} has {dynamics} dynamics; only sequential and simultaneous games are supported"
            )
        self.observation_kind = self._pick_observation(game, game_type, observation)
        if self.observation_kind == "observation":
            shape = tuple(game.observation_tensor_shape())
        else:
            shape = tuple(game.information_state_tensor_shape())
        self._shape = shape
        self._num_players = game.num_players()
        self.possible_agents = [f"player_{p}" for p in range(self._num_players)]
        self.agents = []
        observation_space = spaces.Box(-np.inf, np.inf, shape, np.float32)
        action_space: spaces.Discrete = spaces.Discrete(game.num_distinct_actions())
        self.observation_spaces = {agent: observation_space for agent in self.possible_agents}
        self.action_spaces = {agent: action_space for agent in self.possible_agents}
        self._num_actions = int(action_space.n)
        self.state: Any = None
        self._acting: tuple[AgentID, ...] | None = None
        self._masks: dict[AgentID, np.ndarray] = {}
        self._returns = np.zeros(self._num_players)

    @staticmethod
    def _pick_observation(game: Any, game_type: Any, observation: str | None) -> str:
        has = {
            "observation": game_type.provides_observation_tensor,
            "information_state": game_type.provides_information_state_tensor,
        }
        if observation is None:
            for kind in _OBSERVATION_KINDS:
                if has[kind]:
                    return kind
            raise ArenaError(
                f"from_openspiel: {game} provides neither an observation tensor nor an "
                "information state tensor, so arena cannot give its players observations"
            )
        if observation not in _OBSERVATION_KINDS:
            raise InvalidValueError(
                f"from_openspiel: observation must be 'observation', 'information_state' or None, got {observation!r}"
            )
        if not has[observation]:
            others = [kind for kind in _OBSERVATION_KINDS if has[kind]]
            hint = f"use observation={others[0]!r}" if others else "it provides neither tensor"
            raise ArenaError(f"from_openspiel: {game} provides no {observation} tensor; {hint}")
        return observation

    # ---------------------------------------------------------------- protocol
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start from the game's initial state, sampling chance nodes until a player acts."""
        super().reset(seed=seed)
        self.state = self.game.new_initial_state()
        self.agents = list(self.possible_agents)
        self._sample_chance()
        self._returns = np.asarray(self.state.returns(), dtype=np.float64)
        return self._decision()

    def step(self, actions: Mapping[AgentID, Any]):
        """Apply the acting players' actions, then sample chance nodes until a player acts."""
        self.check_actions(actions, self._acting, self._masks)
        state = self.state
        if state.is_simultaneous_node():
            joint = []
            for player in range(self._num_players):
                agent = self.possible_agents[player]
                joint.append(int(actions[agent]) if agent in actions else pyspiel.INVALID_ACTION)
            state.apply_actions(joint)
        else:  # check_actions let a turn through only with its one mover in _acting
            state.apply_action(int(actions[(self._acting or ())[0]]))
        self._sample_chance()
        returns = np.asarray(state.returns(), dtype=np.float64)
        delta = returns - self._returns
        self._returns = returns
        rewards = {agent: float(delta[p]) for p, agent in enumerate(self.possible_agents)}
        over = state.is_terminal()
        terminations = dict.fromkeys(self.possible_agents, over)
        truncations = dict.fromkeys(self.possible_agents, False)
        if over:
            self.agents = []
            self._acting, self._masks = None, {}
            return {}, rewards, terminations, truncations, {agent: {} for agent in self.possible_agents}
        observations, infos = self._decision()
        return observations, rewards, terminations, truncations, infos

    def _sample_chance(self) -> None:
        state, rng = self.state, self.np_random
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            bounds = list(accumulate(probability for _, probability in outcomes))
            index = bisect_right(bounds, rng.random() * bounds[-1])
            state.apply_action(outcomes[min(index, len(outcomes) - 1)][0])

    def _decision(self) -> tuple[dict[AgentID, Any], dict[AgentID, dict[str, Any]]]:
        state = self.state
        if state.is_simultaneous_node():
            players = tuple(p for p in range(self._num_players) if state.legal_actions(p))
        else:
            players = (state.current_player(),)
        observations, infos, masks = {}, {}, {}
        for player in players:
            agent = self.possible_agents[player]
            mask = np.zeros(self._num_actions, dtype=np.int8)
            mask[state.legal_actions(player)] = 1
            masks[agent] = mask
            observations[agent] = self._observe(player)
            infos[agent] = {"action_mask": mask.copy()}
        self._acting = tuple(observations)
        self._masks = masks
        return observations, infos

    def _observe(self, player: int) -> np.ndarray:
        if self.observation_kind == "observation":
            tensor = self.state.observation_tensor(player)
        else:
            tensor = self.state.information_state_tensor(player)
        return np.asarray(tensor, dtype=np.float32).reshape(self._shape)

    # ---------------------------------------------------------------- extras
    def returns(self) -> dict[AgentID, float]:
        """OpenSpiel's ``state.returns()`` per agent (the sum of rewards so far)."""
        return {agent: float(self._returns[p]) for p, agent in enumerate(self.possible_agents)}

    def action_names(self, agent: AgentID) -> list[str]:
        """OpenSpiel's names of ``agent``'s actions in the current state (``action_to_string``)."""
        if self.state is None:
            raise ResetNeeded(f"{self}: action names depend on the state; call reset() first")
        if agent not in self.possible_agents:
            raise self._unknown_agent(agent)
        player = self.possible_agents.index(agent)
        return [self.state.action_to_string(player, a) for a in range(self._num_actions)]

    def render(self) -> str | None:
        """The state's text (OpenSpiel's ``str(state)``) in ``"ansi"`` mode."""
        if self.render_mode != "ansi" or self.state is None:
            return None
        return str(self.state)

    def __str__(self) -> str:
        return f"<OpenSpielEnv<{self.game}>>"


def from_openspiel(
    game_or_name: Any, *, observation: str | None = None, render_mode: str | None = None, **params: Any
) -> OpenSpielEnv:
    """An OpenSpiel game as an arena env.

    Args:
        game_or_name: a ``pyspiel.Game``, or a game name for ``pyspiel.load_game``
            (``"goofspiel"`` or ``"goofspiel(num_cards=4)"``).
        observation: ``"observation"`` (the observation tensor), ``"information_state"``
            (the information state tensor) or ``None`` (the first of those the game has).
        render_mode: ``"ansi"`` to render the state as text.
        **params: game parameters for ``load_game`` (only with a name).

    Raises:
        ArenaError: unknown game (OpenSpiel's message is chained), parameters given
            with a game object, or no observation tensor (see :class:`OpenSpielEnv`).

    Example:
        >>> env = from_openspiel("goofspiel", num_cards=4, imp_info=True)
        >>> observations, infos = env.reset(seed=0)
        >>> sorted(observations)
        ['player_0', 'player_1']
    """
    if isinstance(game_or_name, str):
        short_name = game_or_name.split("(", 1)[0]
        known = pyspiel.registered_names()
        if short_name not in known:
            close = difflib.get_close_matches(short_name, known, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else "; pyspiel.registered_names() lists them"
            raise ArenaError(f"from_openspiel: unknown OpenSpiel game {short_name!r}{hint}")
        try:
            game = pyspiel.load_game(game_or_name, params) if params else pyspiel.load_game(game_or_name)
        except pyspiel.SpielError as err:
            raise ArenaError(
                f"from_openspiel: cannot load game {game_or_name!r} with parameters {params}: {err}"
            ) from err
    elif isinstance(game_or_name, pyspiel.Game):
        if params:
            raise ArenaError(
                f"from_openspiel: parameters {sorted(params)} given with an already loaded game "
                f"{game_or_name}; pass the name instead, or load the game with them"
            )
        game = game_or_name
    else:
        raise InvalidTypeError(
            f"from_openspiel: expected a pyspiel.Game or a game name, got {type(game_or_name).__name__}"
        )
    return OpenSpielEnv(game, observation=observation, render_mode=render_mode)
