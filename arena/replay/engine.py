"""Playing a stored game again: its frames, its verification, and what each entrant saw.

A stored game is the env spec, the seed and the actions the env received at each step; the env
leads, so stepping a new env with those actions gives the same game whenever the env is
deterministic given its seed (arena's contract). :func:`replay` yields one :class:`Frame` per
position, :func:`verify_game` compares the replayed result with the stored one.

The agent's-eye view (``eye=True``): an entrant built as an :class:`arena.AgtItfWrapper` (an agent
behind an interface stack) is built again and asked to act at its turns, as in the tournament
(same seed, same rewards). Its inner agent is watched, so each frame tells what the entrant saw
after its interfaces and which action it chose in its own space and in the raw space; if the raw
action is not the stored one, the frame says so (the agent is not deterministic).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent, ForwardingAgent
from arena.env import factory_metadata
from arena.errors import ArenaError, ModelNotLoaded, ReplayError, UnknownNameError, UntrustedCodeError
from arena.play_loop import ranks_from_returns
from arena.registry import make_env, resolve
from arena.replay.source import StoredGame
from arena.seeding import derive_seed
from arena.specs.agents import AgentSpec
from arena.specs.interfaces import build_interface

__all__ = ["Frame", "EyeView", "replay", "verify_game", "build_env", "render_modes", "same_action", "action_names"]


@dataclass
class EyeView:
    """What one entrant behind interfaces saw and did at one of its turns.

    Attributes:
        observation: the observation after its interfaces (what its model received).
        space: the model's observation space.
        action: the action it chose, in its own (model) space (``None``: its model was not loaded).
        raw_action: that action after its interfaces, in the env's space (``None`` likewise).
        matches: whether ``raw_action`` is the stored action (``None`` when the model was not
            loaded: a trained folder read from a file without ``--trust`` shows its interfaces only).
    """

    observation: Any
    space: Any
    action: Any
    raw_action: Any
    matches: bool | None


@dataclass
class Frame:
    """One position of a replayed game.

    Attributes:
        step: steps played so far (0: right after ``reset``).
        view: ``env.render()`` here (text or an RGB array), ``None`` if the env does not render.
        rewards: the rewards the previous step gave (empty at step 0).
        returns: the sum of rewards per agent so far.
        acting: the agents that act here, in the env's order.
        masks: agent -> its action mask here (only agents that have one).
        actions: the stored actions taken here (empty at the last frame).
        ended: agent -> ``"terminated"`` or ``"truncated"`` for agents that left at the previous step.
        eye: seat -> :class:`EyeView` for acting entrants behind interfaces (with ``eye=True``).
        observations: the raw observations of the acting agents here.
    """

    step: int
    view: Any
    rewards: dict[str, float]
    returns: dict[str, float]
    acting: list[str]
    masks: dict[str, np.ndarray] = field(default_factory=dict)
    actions: dict[str, Any] = field(default_factory=dict)
    ended: dict[str, str] = field(default_factory=dict)
    eye: dict[str, EyeView] = field(default_factory=dict)
    observations: dict[str, Any] = field(default_factory=dict, repr=False)


def render_modes(env_spec: Any) -> list[str]:
    """The render modes an env factory declares (``metadata["render_modes"]``), without building it."""
    factory = resolve("env", env_spec.factory)
    return list(factory_metadata(factory).get("render_modes", ()))


def build_env(game: StoredGame, render: str | None = None) -> Any:
    """The game's env, rendering in ``render`` mode (``"ansi"``, ``"rgb_array"``) when given."""
    kwargs = dict(game.env.kwargs)
    if render is not None:
        kwargs["render_mode"] = render
    with game.reading():  # a name from the file resolves through the registry unless trusted
        return make_env(game.env.factory, **kwargs)


def action_names(env: Any, agent: str) -> list[str] | None:
    """The env's names for ``agent``'s actions (``env.action_names(agent)``), if it has them."""
    names = env.unwrapped.action_names(agent)
    return None if names is None else [str(name) for name in names]


def same_action(a: Any, b: Any) -> bool:
    """Whether two actions are equal (arrays element-wise, tuples and dicts item by item)."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same_action(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_action(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return bool(a == b)


class _Watch(ForwardingAgent):
    """Plays as ``inner`` and remembers its last observation and action."""

    def __init__(self, inner: Agent) -> None:
        super().__init__(inner)
        self.seen: tuple[Any, Any] = (None, None)  # (model observation, model action) of its last act()

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        self.seen = (observation, None)  # kept when the inner agent has no model (_NoModel)
        action = super().act(observation, action_mask, reward)
        self.seen = (observation, action)
        return action

    def __str__(self) -> str:
        return str(self.inner)


class _NoModel(Agent):
    """The model of a trained folder that was not loaded: its interface stack alone is rebuilt."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        raise ModelNotLoaded


def _stack_only(game: StoredGame, spec: AgentSpec) -> AgtItfWrapper | None:
    """A trained folder's recorded interface stack in front of no model, or ``None`` (nothing recorded).

    The stack's names resolve through the registry only (``game.reading()``); a stack with
    trained statistics (they live in the folder) is not rebuilt, since without them it would
    show other observations than the model saw.
    """
    from arena.training.trained import KeepsStatistics

    recorded = spec.kwargs.get("interface")
    if not isinstance(recorded, str):
        return None
    with game.reading():
        stack = build_interface(recorded)
    if stack is None or any(isinstance(level, KeepsStatistics) for level in stack.levels()):
        return None
    return AgtItfWrapper(_NoModel(), stack)


def _untrusted_folder(game: StoredGame, spec: AgentSpec, name: str) -> AgtItfWrapper | None:
    """The view of a trained folder the file names by its loader (a ``module:callable``, not resolved
    without trust): its recorded stack, with a note saying so."""
    why = f"it is the trained folder {spec.folder}, which a results file's word does not load"
    try:
        agent = _stack_only(game, spec)
    except (ArenaError, ValueError, TypeError) as err:  # a recorded stack that is not (or no longer) buildable
        _note(game, f"no agent's-eye view of {name!r}: {why}, and its recorded interfaces cannot be built: {err}")
        return None
    what = "its interfaces' view is shown, not its choices" if agent is not None else "no agent's-eye view"
    _note(game, f"{what} of {name!r}: {why}; replay --trust loads it")
    return agent


def _note(game: StoredGame, note: str) -> None:
    if note not in game.notes:
        game.notes.append(note)


def _eye_agents(game: StoredGame, env: Any) -> dict[str, tuple[AgtItfWrapper, _Watch]]:
    watched = {}
    for index, (seat, name) in enumerate(game.result.seats.items()):
        spec = game.entrants.get(name)
        if spec is None:
            continue
        side = [other for other, entrant in game.result.seats.items() if entrant == name]
        spec = spec.side_members(len(side))[side.index(seat)] if spec.is_team else spec  # this seat's member
        try:
            with game.reading():
                agent: Agent | None = spec.build(env)
        except UntrustedCodeError as err:
            # The page needs no entrant code: a trained folder shows its recorded stack, others nothing.
            if spec.folder is not None:
                agent = _untrusted_folder(game, spec, name)
            else:
                _note(game, f"no agent's-eye view of {name!r}: {err}")
                continue
        except (UnknownNameError, ImportError) as err:
            _note(game, f"no agent's-eye view of {name!r}: {err}")
            continue
        except Exception as err:
            raise ReplayError(
                f"replay: entrant {name!r} ({spec.label()}) could not be built for its "
                f"agent's-eye view: {type(err).__name__}: {err}"
            ) from err
        if not isinstance(agent, AgtItfWrapper) or not isinstance(agent.agent, Agent):
            continue  # a team's members have no view of their own
        watch = _Watch(agent.agent)
        agent.agent = watch
        agent.setup(env.observation_space(seat), env.action_space(seat))
        seed = game.result.seed
        agent.reset(seed=None if seed is None else derive_seed(seed, index))
        watched[seat] = (agent, watch)
    return watched


def replay(game: StoredGame, *, render: str | None = None, eye: bool = False, env: Any = None) -> Iterator[Frame]:
    """Yield every position of ``game``: after ``reset``, then after each stored step.

    Args:
        game: a stored game with its actions.
        render: the render mode for :attr:`Frame.view` (``None``: no rendering).
        eye: compute the agent's-eye view of entrants behind interfaces.
        env: an env to use (else one is built from the game's spec and closed at the end).

    Raises:
        ReplayError: the game has no stored actions, or the env does not accept them.
    """
    if game.steps is None:
        raise ReplayError(
            f"replay: {game.title} has no stored actions (the env failed, or the file was "
            "written before arena stored actions); it cannot be replayed"
        )
    own = env is None
    if own:
        env = build_env(game, render)
    try:
        yield from _frames(game, env, render, eye)
    finally:
        if own:
            env.close()


def _frames(game: StoredGame, env: Any, render: str | None, eye: bool) -> Iterator[Frame]:
    observations, infos = env.reset(seed=game.result.seed)
    watched = _eye_agents(game, env) if eye else {}
    returns = dict.fromkeys(env.possible_agents, 0.0)
    pending = dict.fromkeys(env.possible_agents, 0.0)
    rewards: dict[str, float] = {}
    ended: dict[str, str] = {}
    steps = game.steps or []
    for index in range(len(steps) + 1):
        actions = steps[index] if index < len(steps) else {}
        masks = {
            agent: np.asarray(infos[agent]["action_mask"])
            for agent in observations
            if isinstance(infos.get(agent), dict) and infos[agent].get("action_mask") is not None
        }
        views = {}
        for seat, (agent, watch) in watched.items():
            if seat in observations and seat in actions:
                reward, pending[seat] = pending[seat], 0.0
                try:
                    raw = agent.act(observations[seat], masks.get(seat), reward)
                    matches: bool | None = same_action(raw, actions[seat])
                except ModelNotLoaded:
                    raw = matches = None
                model_obs, model_action = watch.seen
                views[seat] = EyeView(model_obs, watch.observation_space, model_action, raw, matches)
        yield Frame(
            index,
            env.render() if render else None,
            rewards,
            dict(returns),
            list(observations),
            masks,
            actions,
            ended,
            views,
            dict(observations),
        )
        if index == len(steps):
            return
        if set(actions) != set(observations):
            raise ReplayError(
                f"replay: {game.title}: at step {index} the env asks {sorted(observations)} to act "
                f"but the stored actions are for {sorted(actions)}; the env is not deterministic "
                "given its seed, or it changed since the game was played"
            )
        observations, rewards, terminations, truncations, infos = env.step(actions)
        rewards = {agent: float(r) for agent, r in rewards.items()}
        for seat, r in rewards.items():
            returns[seat] = returns.get(seat, 0.0) + r
            pending[seat] = pending.get(seat, 0.0) + r
        ended = {agent: "terminated" for agent, flag in terminations.items() if flag}
        ended.update({agent: "truncated" for agent, flag in truncations.items() if flag})


def verify_game(game: StoredGame, env: Any = None) -> str | None:
    """Replay ``game`` and compare with its stored result; ``None`` when they agree, else what differs.

    A forfeited game is replayed up to the forfeit (the actions must still be accepted), its
    result is the forfeit's and is not compared.
    """
    own = env is None
    try:
        env = build_env(game) if own else env
        last = None
        for frame in replay(game, env=env):
            last = frame
        scores = env.team_scores() if env.teams else None
    except ReplayError as err:
        return str(err)
    except Exception as err:
        return f"the replay failed at the env: {type(err).__name__}: {err}"
    finally:
        if own and env is not None:
            env.close()
    stored = game.result
    if stored.forfeit is not None or last is None:
        return None
    seats = stored.seats
    sides: dict[str, list[float]] = {}  # entrant -> its seats' returns (several seats: a side of a team game)
    for seat, value in last.returns.items():
        if seat in seats:
            sides.setdefault(seats[seat], []).append(value)
    returns = {name: sum(values) / len(values) for name, values in sides.items()}  # a side's return: the mean
    problems = []
    if stored.length != last.step:
        problems.append(f"length: stored {stored.length}, replayed {last.step}")
    if stored.returns is not None and returns != stored.returns:
        problems.append(f"returns: stored {stored.returns}, replayed {returns}")
    ranks = ranks_from_returns(returns)
    if scores is not None:  # the env decides its sides' outcome by scores (soldiers alive), not returns
        entrant_of = {side: seats[members[0]] for side, members in env.teams.items() if members[0] in seats}
        ranks = ranks_from_returns({entrant_of[side]: value for side, value in scores.items() if side in entrant_of})
    if ranks != stored.ranks:
        problems.append(f"ranks: stored {stored.ranks}, replayed {ranks}")
    if last.acting and not stored.truncated:
        problems.append(f"the stored game ended, the replay still has {last.acting} to act")
    return "; ".join(problems) or None
