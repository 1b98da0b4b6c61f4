"""Parameter sharing over a whole side: every soldier of the learner's side is one slot of a VecEnv.

In an env with sides (:attr:`arena.MultiAgentEnv.teams`) where every live player moves at once
(MAgent2's battles: 81 soldiers a side), training one seat at a time wastes the other 80 soldiers'
experience. :class:`SideVecEnv` plays ``num_games`` games; in each, the learner's policy acts for
every member of one side (the sides take turns game by game) and one opponent, drawn per game from a
pool, acts for the other side in one ``act_batch`` call over its stacked views. Slot ``g * width + i``
is member ``i`` of the learner's side in game ``g``.

The learner's interface is one stack shared by every slot when it keeps no per-episode state
(observations transformed in one ``observation_batch`` call); a stack that keeps some (a shaping
potential, a frame history) is deep-copied once per slot, reset when the slot's game starts and
ended (``done``) when its member leaves, as :class:`~arena.training.SingleAgentEnv` does for its
seat. Either way each member's reward goes through the stack's ``reward`` hook (``done`` at its
end) before ``team_spirit`` mixes them; a slot's stack is ``get_attr("interface")`` for that slot,
so a trained folder pools the statistics of all of them.

A member that leaves the game (killed) is *done* at that step, with its last observation as the
``terminal_observation``; until its game ends, its slot sees zeros, earns nothing and its actions
are ignored (the "black death" of PettingZoo's vectorising wrappers). When the game ends, every
slot of it is done and a new game starts at once.

``arena train ENV --control shared`` (a recipe's ``control="shared"``) trains this way where the env
has no batch whose seats all move at once (:func:`arena.training.vectorised.choose_path`); the folder it writes
plays one seat, so a single spec plays its whole side in a tournament (one policy, state per seat).

This module imports Stable-Baselines3 when it is imported (the ``train`` extra).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from arena.agents.base import Agent
from arena.env import MultiAgentEnv
from arena.errors import ArenaError, InvalidValueError
from arena.interface import Interface
from arena.registry import make_agent, make_env
from arena.training.learner_arguments import learner_spaces, resolve_interfaces
from arena.training.pool import OpponentPool

__all__ = ["SideVecEnv", "side_path_reasons"]


def side_path_reasons(env: MultiAgentEnv, opponents: Sequence[Any], interface: Interface | None) -> list[str]:
    """Why ``env`` cannot train on the side path (an empty list: it can).

    Example:
        >>> import envs
        >>> side_path_reasons(envs.make("tic_tac_toe"), [], None)
        ['<TicTacToe> has no sides (teams)']
    """
    reasons = []
    if not env.teams or len(env.teams) != 2:
        reasons.append(f"{env} has no sides (teams)" if not env.teams else f"{env} has {len(env.teams)} sides, not 2")
    for agent in opponents:
        members = agent if isinstance(agent, OpponentPool) else [agent]
        reasons += [f"the opponent {m} cannot act for a side at once (act_batch)" for m in members if not m.batchable]
    return reasons


class SideVecEnv(VecEnv):
    """Every member of the learner's side, in every game, is one sub-env (parameter sharing).

    Args:
        env: the env (an instance is a template: each game gets its own), its registered name or a factory.
        num_games: games played at once; ``num_envs`` is ``num_games`` times the larger side.
        opponents: the agent (or spec, or :class:`OpponentPool`) that plays the other side; it must
            act in batches (:attr:`arena.Agent.batchable`). A sequence makes a uniform pool.
        interface: the learner's interface, set up on one member's spaces (copied per slot when
            it keeps per-episode state).
        env_kwargs: options for the env.
        team_spirit: the share of each member's reward that is the mean reward of the members
            in play at that step (0: its own reward; 1: the side's mean), as OpenAI Five mixes them.

    Raises:
        ValueError: an env without two sides, an opponent that cannot act in batches,
            observations that are not a Box.
        SpaceMismatchError: members whose (transformed) spaces differ.

    Example:
        >>> venv = SideVecEnv("magent_battle", 2, "magent_attack_nearest", env_kwargs={"map_size": 12})
        >>> venv.num_envs, venv.observation_space.shape
        (4, (13, 13, 5))
        >>> venv.seed(0)
        [0, 1, 2, 3]
        >>> observations = venv.reset()
        >>> observations.shape
        (4, 13, 13, 5)
    """

    def __init__(
        self,
        env: MultiAgentEnv | str | Callable[..., MultiAgentEnv],
        num_games: int,
        opponents: Agent | OpponentPool | str | Sequence[Agent | str] = "random",
        *,
        interface: Interface | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        team_spirit: float = 0.0,
    ) -> None:
        if isinstance(team_spirit, bool) or not isinstance(team_spirit, (int, float)) or not 0 <= team_spirit <= 1:
            raise InvalidValueError(f"SideVecEnv: team_spirit must be a number in [0, 1], got {team_spirit!r}")
        self.team_spirit = float(team_spirit)
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise InvalidValueError(f"SideVecEnv: num_games must be a positive integer, got {num_games!r}")
        kwargs = dict(env_kwargs or {})
        self.games: list[MultiAgentEnv] = [make_env(env, **kwargs) for _ in range(int(num_games))]
        probe = self.games[0]
        self.pool = _as_pool(opponents)
        reasons = side_path_reasons(probe, [self.pool], interface)
        if reasons:
            raise InvalidValueError(f"SideVecEnv({probe}): cannot train on the side path: {'; '.join(reasons)}")
        self.sides: list[str] = list(probe.teams or {})
        self.width = max(len(ids) for ids in (probe.teams or {}).values())
        members = [seat for ids in (probe.teams or {}).values() for seat in ids]
        self.interface = interface
        interfaces = resolve_interfaces(probe, members[:1], interface)
        self._interfaces = {seat: interfaces[members[0]] for seat in members}
        observation_space, action_space = learner_spaces(probe, members, self._interfaces)
        if not isinstance(observation_space, spaces.Box):  # members' views are stacked into one array
            raise InvalidValueError(
                f"SideVecEnv({probe}): a member's observations must be a Box, got {observation_space}"
            )
        self._raw_space = probe.observation_space(members[0]), probe.action_space(members[0])
        self.render_mode = None  # SB3 reads it; these games do not render
        super().__init__(len(self.games) * self.width, observation_space, action_space)
        shared = self._interfaces[members[0]]
        # One stack per slot where a stack keeps per-episode state: slots must not share it.
        self._stacks: list[Interface] | None = None
        if shared is not None and shared.stateful:
            self._stacks = [shared if slot == 0 else copy.deepcopy(shared) for slot in range(self.num_envs)]
        self._obs = np.zeros((self.num_envs, *observation_space.shape), dtype=observation_space.dtype)
        self._raw: list[dict[str, Any]] = [{} for _ in self.games]
        self._members: list[tuple[str, ...]] = [() for _ in self.games]  # the learner's seats, game by game
        self._enemy: list[Agent | None] = [None for _ in self.games]
        self._episodes = np.zeros(len(self.games), dtype=np.int64)
        self._set_up: set[int] = set()
        self._rng = np.random.default_rng()
        self._actions: np.ndarray | None = None
        self._started = False

    # ------------------------------------------------------------ games
    def _start(self, g: int) -> None:
        """A new game ``g``: the learner's side (taking turns), its opponent and the first views."""
        game = self.games[g]
        raw, _ = game.reset(seed=int(self._rng.integers(2**31 - 1)))
        side = self.sides[int(self._episodes[g]) % len(self.sides)]
        self._episodes[g] += 1
        self._members[g] = tuple((game.teams or {})[side])
        enemy = self.pool.sample(self._rng)
        if id(enemy) not in self._set_up:
            enemy.setup(*self._raw_space)
            enemy.reset(seed=int(self._rng.integers(2**31 - 1)))  # seeded from this env: reproducible runs
            self._set_up.add(id(enemy))
        self._enemy[g] = enemy
        self._raw[g] = raw
        self._fill(g, raw, starting=True)

    def _stack(self, slot: int) -> Interface | None:
        """The interface of ``slot``: its own copy for a stateful stack, else the shared one."""
        return self.interface if self._stacks is None else self._stacks[slot]

    def _fill(self, g: int, raw: Mapping[str, Any], *, starting: bool = False) -> None:
        """The learner's observations of game ``g`` into its slots (zeros for members out of play)."""
        base = g * self.width
        block = self._obs[base : base + self.width]
        block[:] = 0
        members = self._members[g]
        live = [i for i, seat in enumerate(members) if seat in raw]
        if not live:
            return
        if self._stacks is None:
            views = np.stack([raw[members[i]] for i in live])
            itf = self.interface
            block[live] = views if itf is None else itf.transform_observation_batch(views)
            return
        for i in live:
            stack = self._stacks[base + i]
            view = raw[members[i]]
            block[i] = stack.transform_reset(view) if starting else stack.transform_observation(view)

    # ------------------------------------------------------------ VecEnv API
    def reset(self) -> np.ndarray:
        """Start every game (seeded by :meth:`seed` when it was called)."""
        seed = self._seeds[0]
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._episodes[:] = 0
        self._reset_seeds()
        self._set_up = set()
        for g in range(len(self.games)):
            self._start(g)
        self._started = True
        return self._obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.num_envs, *np.shape(actions)[1:])

    def step_wait(self):
        if not self._started or self._actions is None:
            raise ArenaError(f"{self}: step() called before reset()")
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        dones = np.zeros(self.num_envs, dtype=bool)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for g in range(len(self.games)):
            self._step_game(g, rewards, dones, infos)
        return self._obs.copy(), rewards, dones, infos

    def _step_game(self, g: int, rewards: np.ndarray, dones: np.ndarray, infos: list[dict[str, Any]]) -> None:
        game, raw, members = self.games[g], self._raw[g], self._members[g]
        base = g * self.width
        last = self._obs[base : base + self.width].copy()
        actions = self._learner_actions(g, raw, members)
        actions.update(self._enemy_actions(g, raw, set(members)))
        raw, step_rewards, terminations, truncations, _ = game.step(actions)
        over = not game.agents
        # Observations before rewards, as SingleAgentEnv: a stateful level's reward reads the new view.
        self._fill(g, raw)
        ends: dict[int, bool] = {}  # slot -> truncated, for every member whose episode ends now
        for i, seat in enumerate(members):
            if terminations.get(seat) or truncations.get(seat):
                ends[i] = bool(truncations.get(seat)) and not terminations.get(seat)
            elif over and seat in self._raw[g]:  # still in when the game stopped: cut short
                ends[i] = True
        playing = [i for i, seat in enumerate(members) if seat in step_rewards]
        if playing:
            own = np.array([self._reward(base + i, step_rewards[members[i]], ends.get(i)) for i in playing])
            spirit = self.team_spirit
            rewards[[base + i for i in playing]] = (1 - spirit) * own + spirit * own.mean()
        for i, truncated in ends.items():
            if i not in playing:  # ended without a reward this step: its stack still ends the episode
                self._reward(base + i, 0.0, truncated)
            dones[base + i] = True
            # The view just filled (a copy: the slot's row is overwritten next step); a member that left sends none.
            final = self._obs[base + i].copy() if members[i] in raw else last[i]
            infos[base + i] = {"terminal_observation": final, "TimeLimit.truncated": truncated}
        if over:
            self._start(g)
            return
        self._raw[g] = raw

    def _reward(self, slot: int, reward: float, truncated: bool | None) -> float:
        """``reward`` through the slot's stack: its ``reward`` hook, or ``done`` when the episode ends
        (``truncated`` is ``None`` while it goes on)."""
        stack = self._stack(slot)
        if stack is None:
            return float(reward)
        if truncated is None:
            return float(stack.transform_reward(reward))
        return float(stack.transform_done(reward, terminated=not truncated, truncated=truncated))

    def _learner_actions(self, g: int, raw: Mapping[str, Any], members: tuple[str, ...]) -> dict[str, Any]:
        base = g * self.width
        chosen = self._actions[base : base + self.width]  # type: ignore[index]
        translate = self.interface is not None and self.interface.compiled().action is not None
        out = {}
        for i, seat in enumerate(members):
            if seat in raw:
                stack = self._stack(base + i)
                out[seat] = stack.transform_action(chosen[i]) if translate and stack is not None else _plain(chosen[i])
        return out

    def _enemy_actions(self, g: int, raw: Mapping[str, Any], learner: set[str]) -> dict[str, Any]:
        seats = [seat for seat in raw if seat not in learner]
        if not seats:
            return {}
        enemy = self._enemy[g]
        if enemy is None:
            raise ArenaError(f"{self}: game {g} has no opponent (reset() first)")
        chosen = enemy.act_batch(np.stack([raw[seat] for seat in seats]))
        return {seat: _plain(action) for seat, action in zip(seats, chosen)}

    def set_opponents(self, opponents: Agent | OpponentPool | str | Sequence[Agent | str]) -> None:
        """Replace the opponents (from each game's next battle on)."""
        pool = _as_pool(opponents)
        reasons = side_path_reasons(self.games[0], [pool], None)
        if reasons:
            raise InvalidValueError(f"{self}: {'; '.join(reasons)}")
        self.pool = pool

    def close(self) -> None:
        """Close every game."""
        for game in self.games:
            game.close()

    # ---------------------------------------------------- attribute access
    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """An attribute of this env, once per requested sub-env (they share it); ``"interface"``
        gives each slot's own stack where the stack keeps per-episode state."""
        if attr_name.startswith("_") or not hasattr(self, attr_name):
            raise AttributeError(f"{self} has no attribute {attr_name!r}")
        if attr_name == "interface" and self._stacks is not None:
            return [self._stacks[i] for i in self._get_indices(indices)]
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        if attr_name.startswith("_") or not hasattr(self, attr_name):
            raise AttributeError(f"{self} has no attribute {attr_name!r}")
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: Any = None, **method_kwargs) -> list[Any]:
        """Methods of this env run once, for all sub-envs."""
        result = self.get_attr(method_name)[0](*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def __str__(self) -> str:
        return f"<SideVecEnv {len(self.games)} games of {self.games[0]}, {self.width} members a side>"

    __repr__ = __str__


def _as_pool(opponents: Agent | OpponentPool | str | Sequence[Agent | str]) -> OpponentPool:
    if isinstance(opponents, OpponentPool):
        return opponents
    if isinstance(opponents, (Agent, str)):
        opponents = [opponents]
    agents = [make_agent(o) if isinstance(o, str) else o for o in opponents]
    return OpponentPool(agents, strategy="uniform")


def _plain(action: Any) -> Any:
    """A numpy scalar as a Python int (envs check action types); arrays pass as they are."""
    return int(action) if np.ndim(action) == 0 else action
