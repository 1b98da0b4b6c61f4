"""Pommerman's team training on the batch: the vectorised env ``arena train pommerman`` steps in team mode.

The team recipe (:mod:`envs.pommerman.recipe`) names :func:`team_vec_env` (registered as
``pommerman_team`` in the ``arena.vec_envs`` entry-point group) as its own vectorised env, so
``arena train pommerman --env-options '{"mode": "team"}'`` trains on
:class:`~envs.pommerman.vec_env.PommermanVecEnv`: many games in one compiled batch, one policy
for both members of a side (parameter sharing, ego view). The learner's interface stack says
what the trainer does, level by level, each run over the whole batch at once:

* ``pommerman_batch_planes(ego=..., max_steps=...)`` on top: the model sees the batch's planes
  (the same encoder: a policy trained here plays the single env behind that stack);
* ``pommerman_safe_moves``: the action filter, as MaskablePPO's action masks
  (:func:`interfaces.pommerman_safety.safe_moves_planes`);
* ``pommerman_pickup_bonus``, ``pommerman_enemy_down_bonus``: the shaping bonuses, added to the
  rewards (:func:`interfaces.pommerman_shaping.pickups_planes`, ``enemies_down_planes``).

The opponents come from the run's pool, each game drawing one every episode: ``pommerman_simple``
plays batched (:class:`~envs.pommerman.agents.PommermanSimpleBatch`), ``random`` draws moves, and
an agent behind the learner's planes (a self-play snapshot, a trained folder) acts for all its
games in one forward a step, behind the action filter where its stack has it.

This module imports Stable-Baselines3 when it is imported (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent, RandomAgent
from arena.interface import Interface
from arena.training.policy_agent import require_sb3
from arena.training.pool import OpponentPool
from envs.pommerman.agents import PommermanSimpleAgent
from envs.pommerman.planes import SELF
from envs.pommerman.vec_env import PommermanVecEnv
from interfaces.pommerman import PommermanBatchPlanes
from interfaces.pommerman_safety import PommermanSafeMoves, safe_moves_planes
from interfaces.pommerman_shaping import (
    PommermanEnemyDownBonus,
    PommermanPickupBonus,
    enemies_down_planes,
    pickups_planes,
)

require_sb3()
from stable_baselines3.common.vec_env import VecEnvWrapper  # noqa: E402

from arena.errors import InvalidValueError

__all__ = ["PommermanTeamTraining", "BatchTrainerSettings", "batch_trainer_settings", "team_vec_env"]

#: The options of ``envs.make("pommerman", ...)`` that the batch honours (the others only draw).
_GAME_OPTIONS = ("mode", "max_steps")
_DRAWING_OPTIONS = ("render_mode", "cell_pixels")


@dataclass(frozen=True)
class BatchTrainerSettings:
    """What the batched trainer reads from a learner's stack: the view, the action filter, the bonuses.

    Attributes:
        ego: the planes are ego views (each agent sees itself top left).
        max_steps: the step limit the planes' clock counts towards.
        action_filter: ``pommerman_safe_moves`` is in the stack (its masks reach MaskablePPO).
        pickup: the summed bonus of the stack's ``pommerman_pickup_bonus`` levels.
        enemy_down: the summed bonus of its ``pommerman_enemy_down_bonus`` levels.
    """

    ego: bool
    max_steps: int
    action_filter: bool
    pickup: float
    enemy_down: float


def batch_trainer_settings(interface: Interface | None) -> BatchTrainerSettings:
    """Read ``interface``'s levels as the batched trainer runs them.

    Raises:
        ValueError: no stack, a stack not topped by ``pommerman_batch_planes``, or a level the batch
            cannot run (it names the ones it can).

    Example:
        >>> from arena.specs.interfaces import build_interface
        >>> settings = batch_trainer_settings(build_interface("pommerman_batch_planes(pommerman_safe_moves, ego=true)"))
        >>> settings.ego, settings.action_filter, settings.pickup
        (True, True, 0.0)
    """
    if not isinstance(interface, PommermanBatchPlanes):
        raise InvalidValueError(
            f"the batched Pommerman team trainer needs a stack topped by pommerman_batch_planes (the batch's "
            f"planes are the model's observations), got {interface} (--path single trains any stack one game at a time)"
        )
    action_filter, pickup, enemy_down = False, 0.0, 0.0
    for level in interface.levels()[:-1]:
        if isinstance(level, PommermanSafeMoves):
            action_filter = True
        elif isinstance(level, PommermanPickupBonus):
            pickup += level.bonus
        elif isinstance(level, PommermanEnemyDownBonus):
            enemy_down += level.bonus
        else:
            raise InvalidValueError(
                f"the batched Pommerman team trainer runs pommerman_safe_moves, pommerman_pickup_bonus and "
                f"pommerman_enemy_down_bonus under pommerman_batch_planes; it cannot run {level} of {interface} "
                "(--path single trains any stack one game at a time)"
            )
    return BatchTrainerSettings(interface.ego, interface.max_steps, action_filter, pickup, enemy_down)


def _batch_player(agent: Agent, ego: bool) -> Any:
    """``agent`` as a :class:`PommermanVecEnv` opponent player, or ``None`` where it cannot play the batch."""
    if isinstance(agent, PommermanSimpleAgent):
        return "simple"
    if isinstance(agent, RandomAgent):
        return "random"
    if not isinstance(agent, AgtItfWrapper):
        return None
    inner = agent.agent
    if not isinstance(inner, Agent) or not inner.batchable:
        return None
    try:
        settings = batch_trainer_settings(agent.interface)
    except ValueError:
        return None
    if settings.ego != ego:
        return None
    masked = settings.action_filter

    def moves(views: np.ndarray) -> np.ndarray:  # one forward for every seat of every game it plays
        return np.asarray(inner.act_batch(views, safe_moves_planes(views) if masked else None))

    return moves


class PommermanTeamTraining(VecEnvWrapper):
    """A :class:`PommermanVecEnv` as the learner's stack trains on it: masks, bonuses, a pool of opponents.

    Args:
        venv: the games (``seats="team"`` for parameter sharing).
        interface: the learner's stack (kept as :attr:`interface`; read by :func:`batch_trainer_settings`).
        opponents: an agent or an :class:`~arena.training.OpponentPool` whose members can play the
            batch (see the module docstring); :meth:`set_opponents` replaces them.

    Raises:
        ValueError: a stack the batch cannot run, or an opponent that cannot play the batch.

    Example:
        >>> from arena import make_agent
        >>> from arena.specs.interfaces import build_interface
        >>> stack = build_interface("pommerman_batch_planes(pommerman_safe_moves, ego=true, max_steps=40)")
        >>> venv = PommermanTeamTraining(
        ...     PommermanVecEnv(2, "team", seats="team", ego=True, max_steps=40), stack, make_agent("pommerman_simple")
        ... )
        >>> _ = venv.seed(0)
        >>> venv.reset().shape, np.stack(venv.env_method("action_masks")).shape
        ((4, 22, 11, 11), (4, 6))
    """

    def __init__(self, venv: PommermanVecEnv, interface: Interface | None, opponents: Agent | OpponentPool) -> None:
        super().__init__(venv)
        self.games = venv
        self.interface = interface
        self.settings = batch_trainer_settings(interface)
        if self.settings.ego != venv.batch.ego or self.settings.max_steps != venv.batch.max_steps:
            raise InvalidValueError(
                f"{interface} reads views with ego={self.settings.ego}, max_steps={self.settings.max_steps}; the batch "
                f"gives ego={venv.batch.ego}, max_steps={venv.batch.max_steps}"
            )
        self._players: dict[int, tuple[Agent, Any]] = {}  # id(agent) -> (agent, its player): stable identities
        self.set_opponents(opponents)
        self._last: np.ndarray | None = None
        self._masks = np.ones((venv.num_envs, 6), dtype=bool)

    def set_opponents(self, opponents: Agent | OpponentPool) -> None:
        """Hand the games new opponents (a self-play promotion): each game draws at its next episode.

        Raises:
            ValueError: a member that cannot play the batch.
        """
        members: list[Agent] = list(opponents) if isinstance(opponents, OpponentPool) else [opponents]
        if isinstance(opponents, OpponentPool) and opponents.strategy == "latest":
            members = members[-1:]
        players, known = [], {}
        for agent in members:
            entry = self._players.get(id(agent))
            if entry is None or entry[0] is not agent:
                player = _batch_player(agent, self.settings.ego)
                if player is None:
                    raise InvalidValueError(
                        f"the batched Pommerman team trainer cannot play {agent} on the batch: its opponents are "
                        "pommerman_simple, random, or agents behind pommerman_batch_planes with the learner's "
                        f"ego={self.settings.ego} (self-play snapshots, trained folders)"
                    )
                entry = (agent, player)
            known[id(agent)] = entry
            players.append(entry[1])
        self._players = known  # only the pool's members: a retired snapshot's model is let go
        self.games.set_opponents(players)

    def _observe(self, obs: np.ndarray) -> None:
        self._last = obs
        if self.settings.action_filter:
            self._masks = safe_moves_planes(obs).astype(bool)

    def reset(self) -> np.ndarray:
        obs = self.games.reset()
        self._observe(obs)
        return obs

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.games.step_wait()
        settings, last = self.settings, self._last
        if last is not None and (settings.pickup or settings.enemy_down):
            bonus = settings.pickup * pickups_planes(last, obs) + settings.enemy_down * enemies_down_planes(last, obs)
            # No bonus where a game restarted (two games compared) or the learner died (its zeros: "all down").
            alive = obs[:, SELF].any(axis=(1, 2))
            rewards = rewards + np.where(dones | ~alive, 0.0, bonus).astype(np.float32)
        self._observe(obs)
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """Every slot's mask (bools, ``(num_envs, 6)``): the action filter's, in the model's (ego) frame."""
        return self._masks.copy()

    _OWN = ("interface", "settings", "action_masks", "set_opponents")

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name in self._OWN:
            return [getattr(self, attr_name) for _ in self._get_indices(indices)]
        return self.venv.get_attr(attr_name, indices)

    def has_attr(self, attr_name: str) -> bool:
        return attr_name in self._OWN or self.venv.has_attr(attr_name)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        chosen = self._get_indices(indices)
        if method_name == "action_masks":  # what MaskablePPO asks for: one mask a slot
            return list(self._masks[list(chosen)])
        if method_name == "set_opponents":
            self.set_opponents(*method_args, **method_kwargs)
            return [None for _ in chosen]
        return self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)

    def __str__(self) -> str:
        return f"<PommermanTeamTraining {self.venv} behind {self.interface}>"

    __repr__ = __str__


# The arena.vec_envs factory signature (own_vec_env calls every factory so), shared with pong_vec_env.
def team_vec_env(
    env: str,
    num_games: int,
    opponents: Agent | OpponentPool,
    *,
    interface: Interface | None,
    env_options: Mapping[str, Any],
) -> PommermanTeamTraining:
    """The ``pommerman_team`` trainer env (``arena.vec_envs``): ``num_games`` team games, two learner slots each.

    Called by :func:`arena.training.vectorised.own_vec_env` with the run's env, games, opponents,
    the learner's stack and the env options.

    Raises:
        ValueError: an env other than ``pommerman`` in team mode, options the batch does not
            honour, a stack it cannot run, opponents that cannot play the batch.

    Example:
        >>> from arena import make_agent
        >>> from arena.specs.interfaces import build_interface
        >>> venv = team_vec_env("pommerman", 2, make_agent("pommerman_simple"), env_options={"mode": "team"},
        ...                     interface=build_interface("pommerman_batch_planes(ego=true)"))
        >>> venv.num_envs
        4
        >>> team_vec_env("pommerman", 2, make_agent("pommerman_simple"), env_options={},
        ...              interface=build_interface("pommerman_batch_planes(ego=true)"))
        Traceback (most recent call last):
        ...
        arena.errors.InvalidValueError: pommerman_team trains Pommerman's team mode: give --env-options '{"mode": "team"}', got mode 'ffa'
    """
    if env != "pommerman":
        raise InvalidValueError(f"pommerman_team trains the pommerman env, got {env!r}")
    options = dict(env_options)
    mode = options.get("mode", "ffa")
    if mode != "team":
        team = '{"mode": "team"}'
        raise InvalidValueError(
            f"pommerman_team trains Pommerman's team mode: give --env-options '{team}', got mode {mode!r}"
        )
    unknown = sorted(set(options) - set(_GAME_OPTIONS) - set(_DRAWING_OPTIONS))
    if unknown:
        raise InvalidValueError(
            f"pommerman_team: the batch takes the options {', '.join(_GAME_OPTIONS)}, got {unknown}"
        )
    settings = batch_trainer_settings(interface)
    max_steps = int(options.get("max_steps", 800))
    venv = PommermanVecEnv(num_games, "team", seats="team", ego=settings.ego, max_steps=max_steps)
    return PommermanTeamTraining(venv, interface, opponents)
