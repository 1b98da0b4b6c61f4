"""The games one worker of :class:`arena.worker_batch.WorkerBatch` plays, and the worker's loop.

:class:`GameSlots` holds single envs for some of a batch's games and turns their dicts into
one row of arrays per game (stacked by the parent with :func:`arena.batched_stack.stack_rows`).
The same class runs in-process (``num_workers=0``) and inside each worker process, so a
batch plays the same games whatever its number of workers. :func:`serve` is the loop of a
worker process: it answers one command at a time over a pipe.
"""

from __future__ import annotations

import signal
import traceback
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidTypeError, InvalidValueError

__all__ = ["Description", "GameRow", "GameSlots", "blank", "serve"]


class Description(NamedTuple):
    """What the parent learns of the env from a worker before the first reset."""

    name: str
    possible_agents: tuple[str, ...]
    observation_space: spaces.Space[Any]
    action_space: spaces.Space[Any]


class GameRow(NamedTuple):
    """One game after a reset or a step, as arrays (``agents`` = ``len(possible_agents)``).

    ``observation`` is ``(agents, *shape)`` (or a dict/tuple of such), zero for an agent not
    in play; ``final`` is, set only when ``over``, the last observation each agent was shown in the
    ended episode (same form; the ending step's where it showed one, zero for an agent never shown
    one); ``mask`` is ``(agents, n)`` bool for a
    discrete action space, else ``None``.
    """

    observation: Any
    live: np.ndarray
    rewards: np.ndarray
    terminations: np.ndarray
    truncations: np.ndarray
    mask: np.ndarray | None
    over: bool
    final: Any


def blank(space: spaces.Space[Any]) -> Any:
    """The zero value of ``space``'s form: what a batch shows for an agent that is not in play.

    Raises:
        TypeError: a space without a fixed array form (``Text``, ``Graph``, ``Sequence``).

    Example:
        >>> blank(spaces.Dict({"a": spaces.Box(0, 1, (2,)), "b": spaces.Discrete(3)}))
        {'a': array([0., 0.], dtype=float32), 'b': np.int64(0)}
    """
    if isinstance(space, spaces.Dict):
        return {key: blank(sub) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(blank(sub) for sub in space.spaces)
    if isinstance(space, (spaces.Box, spaces.Discrete, spaces.MultiDiscrete, spaces.MultiBinary)):
        shape: tuple[int, ...] = tuple(space.shape or ())
        dtype: Any = space.dtype
        zero = np.zeros(shape, dtype)
        return zero[()] if not shape else zero
    raise InvalidTypeError(
        f"a worker batch stacks Box, Discrete, MultiDiscrete, MultiBinary, Dict and Tuple spaces; got {space}"
    )


def _like(value: Any, zero: Any) -> Any:
    """``value`` as arrays of ``zero``'s dtypes (so a row's dtype never depends on who is in play)."""
    if isinstance(zero, dict):
        return {key: _like(value[key], sub) for key, sub in zero.items()}
    if isinstance(zero, tuple):
        return tuple(_like(part, sub) for part, sub in zip(value, zero))
    return np.array(value, dtype=zero.dtype)  # a copy: an env may reuse its observation arrays


def _stack_agents(values: Sequence[Any]) -> Any:
    first = values[0]
    if isinstance(first, dict):
        return {key: _stack_agents([value[key] for value in values]) for key in first}
    if isinstance(first, tuple):
        return tuple(_stack_agents([value[i] for value in values]) for i in range(len(first)))
    return np.stack(values)


class GameSlots:
    """Single envs for the games ``games`` of a batch, played as rows of arrays.

    Args:
        make_env: builds one env (called once per game).
        games: the batch's indices of these games.

    Example:
        >>> from envs.rock_paper_scissors import RockPaperScissors
        >>> slots = GameSlots(RockPaperScissors, [0, 1])
        >>> rows = slots.reset([(0, 5), (1, 6)], None)
        >>> rows[0].live.tolist()
        [True, True]
    """

    def __init__(self, make_env: Callable[[], Any], games: Sequence[int]) -> None:
        self.envs = {int(g): make_env() for g in games}
        first = next(iter(self.envs.values()))
        self.agents = tuple(first.possible_agents)
        observation_space, action_space = first.observation_space(self.agents[0]), first.action_space(self.agents[0])
        for agent in self.agents[1:]:
            if first.observation_space(agent) != observation_space or first.action_space(agent) != action_space:
                raise InvalidValueError(
                    f"a worker batch of {first} needs every agent to share one observation and one action space; "
                    f"{agent}'s differ from {self.agents[0]}'s"
                )
        self.description = Description(str(first), self.agents, observation_space, action_space)
        self._zero = blank(observation_space)
        self._actions = int(action_space.n) if isinstance(action_space, spaces.Discrete) else None
        #: The game played last: the one that raised, when a call raises.
        self.current: int | None = None
        self._index = {agent: i for i, agent in enumerate(self.agents)}
        self._shown: dict[int, Any] = {}  # each game's last observation of each agent, stacked as a row

    def reset(self, seeds: Sequence[tuple[int, int | None]], options: dict[str, Any] | None) -> list[GameRow]:
        """Reset each game ``g`` of ``seeds`` (``(g, seed)`` pairs) with its seed; one row each."""
        rows = []
        for g, seed in seeds:
            observations, infos = self._env(g).reset(seed=seed, options=options)
            rows.append(self._row(g, observations, infos, fresh=True))
        return rows

    def restart(self, games: Sequence[int]) -> list[GameRow]:
        """Start the next episode of ``games`` now (a plain ``reset()``); one row each."""
        rows = []
        for g in games:
            observations, infos = self._env(g).reset()
            rows.append(self._row(g, observations, infos, fresh=True))
        return rows

    def step(self, actions: Sequence[tuple[int, dict[str, Any]]]) -> list[GameRow]:
        """Step each game ``g`` of ``actions`` (``(g, {agent: action})`` pairs); a game that ends restarts."""
        rows = []
        n = len(self.agents)
        for g, joint in actions:
            env = self._env(g)
            observations, rewards, terminations, truncations, infos = env.step(joint)
            outcome = (
                self._spread(rewards, np.zeros(n, np.float32)),
                self._flags(terminations),
                self._flags(truncations),
            )
            if env.agents:
                rows.append(self._row(g, observations, infos, outcome))
                continue
            # the env shows no observation once the episode is over (arena's protocol): the final
            # observation is what each agent saw last, as a batch that keeps its views shows it
            stacked, live = self._stack(observations)
            final = self._shown[g]
            _keep(final, stacked, live)
            restarted, infos = env.reset()
            rows.append(self._row(g, restarted, infos, outcome, fresh=True)._replace(over=True, final=final))
        return rows

    def _env(self, game: int) -> Any:
        self.current = game  # named in an error raised while this game plays
        return self.envs[game]

    def close(self) -> None:
        """Close every env."""
        for env in self.envs.values():
            env.close()

    def _spread(self, values: dict[str, Any], out: np.ndarray) -> np.ndarray:
        """``out`` with each named agent's value at its index (the others keep theirs)."""
        if values:
            out[[self._index[agent] for agent in values]] = list(values.values())
        return out

    def _flags(self, values: dict[str, Any]) -> np.ndarray:
        return self._spread({agent: bool(flag) for agent, flag in values.items()}, np.zeros(len(self.agents), bool))

    def _stack(self, observations: dict[str, Any]) -> tuple[Any, np.ndarray]:
        """The agents' observations as one row (zero for an agent not named) and who is named."""
        live = np.zeros(len(self.agents), bool)
        index = [self._index[agent] for agent in observations]
        live[index] = True
        zero = self._zero
        if isinstance(zero, (dict, tuple)):
            named = {agent: _like(value, zero) for agent, value in observations.items()}
            return _stack_agents([named.get(agent, zero) for agent in self.agents]), live
        stacked = np.zeros((len(self.agents), *np.shape(zero)), zero.dtype)  # a copy: envs may reuse their arrays
        if index:
            stacked[index] = np.stack([np.asarray(value) for value in observations.values()])
        return stacked, live

    def _row(
        self, game: int, observations: dict[str, Any], infos: dict[str, Any], outcome: Any = None, fresh: bool = False
    ) -> GameRow:
        stacked, live = self._stack(observations)
        if fresh or game not in self._shown:
            self._shown[game] = _copy(stacked)
        else:
            _keep(self._shown[game], stacked, live)
        n = len(self.agents)
        rewards, terminations, truncations = outcome or (np.zeros(n, np.float32), np.zeros(n, bool), np.zeros(n, bool))
        mask = None
        if self._actions is not None:
            mask = np.ones((n, self._actions), bool)
            for agent, info in (infos or {}).items():
                given = info.get("action_mask") if isinstance(info, dict) else None
                if given is not None and agent in self._index:
                    mask[self._index[agent]] = np.asarray(given).astype(bool)
        return GameRow(stacked, live, rewards, terminations, truncations, mask, False, None)


def _keep(shown: Any, stacked: Any, live: np.ndarray) -> None:
    """``shown[live] = stacked[live]`` through dicts and tuples."""
    if isinstance(shown, dict):
        for key, value in shown.items():
            _keep(value, stacked[key], live)
    elif isinstance(shown, tuple):
        for value, part in zip(shown, stacked):
            _keep(value, part, live)
    else:
        shown[live] = stacked[live]


def _copy(stacked: Any) -> Any:
    if isinstance(stacked, dict):
        return {key: _copy(value) for key, value in stacked.items()}
    if isinstance(stacked, tuple):
        return tuple(_copy(value) for value in stacked)
    return stacked.copy()


def serve(connection: Any, make_env: bytes, games: Sequence[int]) -> None:
    """The loop of one worker process: build the games' envs, then answer commands until ``"close"``.

    ``make_env`` is a cloudpickled factory. Each command ``(name, argument)`` is answered
    ``("ok", result)`` or ``("error", (game, type name, message, traceback text, exception))``,
    the exception pickled where it pickles. A closed pipe (the parent died) ends the loop.
    """
    import pickle

    import cloudpickle

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it closes the workers
    slots: GameSlots | None = None
    try:
        while True:
            try:
                name, argument = connection.recv()
            except (EOFError, OSError):
                return
            try:
                if name == "start":
                    slots = GameSlots(cloudpickle.loads(make_env), games)
                    result: Any = slots.description
                elif name == "close":
                    if slots is not None:
                        slots.close()
                    connection.send(("ok", None))
                    return
                else:
                    result = getattr(slots, name)(*argument)
                connection.send(("ok", result))
            except Exception as error:  # the env's error, sent to the parent to raise there
                try:
                    sent: bytes | None = pickle.dumps(error)
                except Exception:  # an exception that does not pickle travels as text only
                    sent = None
                game = slots.current if slots is not None else None
                connection.send(("error", (game, type(error).__name__, str(error), traceback.format_exc(), sent)))
    finally:
        connection.close()
