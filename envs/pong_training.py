"""Pong-2p's training env on the batch: the vectorised env ``arena train pong_2p`` steps.

The ``pong_2p`` recipe names :func:`pong_vec_env` (registered as ``pong_2p`` in the
``arena.vec_envs`` entry-point group), so ``arena train pong_2p`` trains on
:class:`PongTraining`: ``num_games`` games of :class:`~envs.pong_batch.PongBatch` in one numpy
step, one learner seat a game (player_0 and player_1 in turn, game after game: the mirrored
observation makes them alike). The learner's stack says what the trainer does, each level over
the whole batch at once:

* ``pong_moves`` on top: the model's three moves, sent as the raw actions 0, 2, 3;
* ``pong_frames(scale=..., frames=...)``: the model sees the stack of pictures
  :meth:`~interfaces.pong.PongFrames.pictures` draws (the same pictures: a policy trained here plays the
  single env behind that stack);
* ``pong_hit_bonus(...)`` and ``pong_aim(...)`` (optional, under the frames, in either order): the
  shaping (:meth:`~interfaces.pong.PongHitBonus.pay` per return, the change of
  :meth:`~interfaces.pong_aim.PongAim.potentials` every step), added to the rewards.

The opponents come from the run's pool, each game drawing one every game: ``pong_ai`` plays
batched (:meth:`~envs.pong_agents.PongAIAgent.act_batch`), and an agent behind the learner's stack (a
self-play snapshot, a trained folder) acts for all its games in one forward a step, from its
own stack of pictures of its seat.

This module imports Stable-Baselines3 when it is imported (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.errors import ArenaError, InvalidValueError
from arena.interface import Interface
from arena.training.in_process import InProcessVecEnv
from arena.training.pool import DrawnPlayers, OpponentPool
from envs.pong_agents import PongAIAgent
from envs.pong_batch import PongBatch
from interfaces.pong import PongFrames, PongHitBonus, PongMoves
from interfaces.pong_aim import PongAim

__all__ = ["PongStack", "PongTraining", "pong_stack_levels", "pong_vec_env"]

#: The raw action of each of pong_moves' three moves.
_RAW_MOVES = np.array([plain for plain, _ in PongMoves.MOVES], dtype=np.int64)
#: The options of envs.make("pong_2p", ...) that the batch honours (the others only draw).
_GAME_OPTIONS = ("rounds", "max_round_steps", "ball_speed", "ball_spin", "paddle_speed", "paddle_accel")
_DRAWING_OPTIONS = ("render_mode", "frame_scale")


class PongStack:
    """What a learner's stack asks of the batched trainer: the pictures and the shaping."""

    def __init__(self, drawing: PongFrames, shaping: PongHitBonus | None, aim: PongAim | None = None) -> None:
        self.drawing, self.shaping, self.aim = drawing, shaping, aim
        self.scale, self.frames = drawing.scale, drawing.frames


def pong_stack_levels(interface: Interface | None) -> PongStack:
    """Read ``interface``'s levels as the batched trainer runs them.

    Raises:
        ValueError: a stack other than ``pong_moves(pong_frames(...))`` with at most a
            ``pong_hit_bonus`` and a ``pong_aim`` under the frames, or frames drawn from anything
            but the vector.

    Example:
        >>> from arena.specs.interfaces import build_interface
        >>> stack = pong_stack_levels(build_interface("pong_moves(pong_frames(pong_hit_bonus(bonus=0.02), scale=4))"))
        >>> stack.scale, stack.frames, stack.shaping.bonus
        (4, 2, 0.02)
    """
    levels = interface.levels() if isinstance(interface, Interface) else []
    names = [type(level).__name__ for level in levels]
    frames = levels[-2] if len(levels) >= 2 else None
    shaping = levels[:-2]
    kinds = [type(level) for level in shaping]
    if (
        not isinstance(interface, PongMoves)
        or not isinstance(frames, PongFrames)
        or any(kind not in (PongHitBonus, PongAim) for kind in kinds)
        or len(set(kinds)) != len(kinds)
    ):
        raise InvalidValueError(
            "the batched pong_2p trainer runs pong_moves(pong_frames(...)) with an optional pong_hit_bonus and "
            f"pong_aim under the frames, got {interface} (levels {names}; --path single trains any stack one game "
            "at a time)"
        )
    bonus = next((level for level in shaping if isinstance(level, PongHitBonus)), None)
    aim = next((level for level in shaping if isinstance(level, PongAim)), None)
    return PongStack(frames, bonus, aim)


def _batch_player(agent: Agent, stack: PongStack) -> Any:
    """``agent`` as a :class:`PongTraining` opponent: ``"pong_ai"``, a model reading the learner's pictures, or None."""
    if isinstance(agent, PongAIAgent):
        return ("pong_ai", agent)
    if not isinstance(agent, AgtItfWrapper) or not isinstance(agent.agent, Agent) or not agent.agent.batchable:
        return None
    try:
        levels = pong_stack_levels(agent.interface)
    except ValueError:
        return None
    if (levels.scale, levels.frames) != (stack.scale, stack.frames):
        return None
    inner = agent.agent
    return lambda views: _RAW_MOVES[np.asarray(inner.act_batch(views)).reshape(-1).astype(np.int64)]


class PongTraining(InProcessVecEnv):
    """One learner seat in each of ``num_games`` Pong games, the other seat played by opponents from a pool.

    Sub-env ``k`` is game ``k``; its learner takes player_0, then player_1 the next game, and
    so on. Observations are the learner's stacks of pictures, ``(num_games, frames, side,
    side)`` uint8; actions the three moves of ``pong_moves``; rewards the rounds' +1/-1 plus the
    stack's return bonus. A sub-env is done when its game ends (the next game starts at once).

    Args:
        batch: the games.
        interface: the learner's stack (kept as :attr:`interface`; read by :func:`pong_stack_levels`).
        opponents: an agent or an :class:`~arena.training.OpponentPool` of agents that can play the
            batch (``pong_ai``; agents behind the learner's pictures); :meth:`set_opponents` replaces them.
        seed: seeds the serves and the opponents' draws (``reset`` restarts them).

    Raises:
        ValueError: a stack the batch cannot run, or an opponent that cannot play it.

    Example:
        >>> from arena.specs.interfaces import build_interface
        >>> stack = build_interface("pong_moves(pong_frames(pong_hit_bonus(bonus=0.02), scale=4, frames=2))")
        >>> venv = PongTraining(PongBatch(3, rounds=1), stack, PongAIAgent(), seed=0)
        >>> venv.reset().shape
        (3, 2, 40, 40)
        >>> obs, rewards, dones, infos = venv.step(np.zeros(3, dtype=np.int64))
        >>> rewards.dtype, infos[0]["seat"]
        (dtype('float32'), 'player_0')
    """

    def __init__(
        self, batch: PongBatch, interface: Interface | None, opponents: Agent | OpponentPool, *, seed: int | None = None
    ) -> None:
        self.batch = batch
        self.interface = interface
        self.stack = pong_stack_levels(interface)
        side = 160 // self.stack.scale
        self.render_mode = None  # read by VecEnv.__init__
        super().__init__(
            batch.num_games,
            spaces.Box(0, 255, (self.stack.frames, side, side), np.uint8),
            spaces.Discrete(len(_RAW_MOVES)),
        )
        self.seed_value = seed
        self._players: dict[int, tuple[Agent, Any]] = {}
        self._members: list[Any] = []  # the players games draw from now
        self.set_opponents(opponents)
        self._rng = np.random.default_rng(seed)
        n = batch.num_games
        self._seat = np.zeros(n, dtype=np.int64)  # the learner's seat in each game
        self._drawn = DrawnPlayers(n)  # each game's opponent this game
        self._stacks = np.zeros((n, 2, self.stack.frames, side, side), dtype=np.uint8)  # both seats' pictures
        self._last_vx = np.zeros(n, dtype=np.float32)
        self._potential = np.zeros(n, dtype=np.float64)  # pong_aim's, of each learner's last observation
        self._vectors: np.ndarray | None = None
        self._actions: np.ndarray | None = None

    def set_opponents(self, opponents: Agent | OpponentPool) -> None:
        """Hand the games new opponents (a self-play promotion): each game draws at its next game.

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
                player = _batch_player(agent, self.stack)
                if player is None:
                    raise InvalidValueError(
                        f"the batched pong_2p trainer cannot play {agent}: its opponents are pong_ai or agents behind "
                        f"pong_moves(pong_frames(scale={self.stack.scale}, frames={self.stack.frames})) (self-play "
                        "snapshots, trained folders)"
                    )
                entry = (agent, player)
            known[id(agent)] = entry
            players.append(entry[1])
        self._players = known  # only the pool's members: a retired snapshot's model is let go
        self._members = players

    def reset(self) -> np.ndarray:
        """Start every game (seeded by ``seed``/:meth:`seed`) and return the learners' pictures."""
        seed = self._seeds[0] if self._seeds[0] is not None else self.seed_value
        self._reset_seeds()
        self._rng = np.random.default_rng(seed)
        vectors, _ = self.batch.reset(seed=int(self._rng.integers(2**31 - 1)))
        games = np.ones(self.batch.num_games, dtype=bool)
        self._seat[:] = 0
        self._drawn.clear()
        self._draw(games)
        self._start_stacks(vectors, games)
        self._vectors = vectors
        return self._learner_view()

    def _draw(self, games: np.ndarray) -> None:
        index = np.flatnonzero(games)
        if len(index):
            picks = self._rng.integers(len(self._members), size=len(index)).tolist()
            self._drawn.assign(index.tolist(), [self._members[pick] for pick in picks], self._members)

    def _start_stacks(self, vectors: np.ndarray, games: np.ndarray) -> None:
        index = np.flatnonzero(games)
        if len(index):
            drawn = self.stack.drawing.pictures(vectors[index].reshape(-1, 8)).reshape(
                len(index), 2, 1, *self._stacks.shape[-2:]
            )
            self._stacks[index] = drawn  # every frame of a new game's stack is its first picture
            own = vectors[index, self._seat[index]]
            self._last_vx[index] = own[:, 2]
            if self.stack.aim is not None:
                self._potential[index] = self.stack.aim.potentials(own, np.zeros(len(index)))

    def _learner_view(self) -> np.ndarray:
        return self._stacks[np.arange(self.batch.num_games), self._seat].copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions).reshape(self.batch.num_games)

    def _opponent_moves(self, vectors: np.ndarray) -> np.ndarray:
        games = np.arange(self.batch.num_games)
        other = 1 - self._seat
        moves = np.zeros(self.batch.num_games, dtype=np.int64)
        for code in np.unique(self._drawn.codes).tolist():
            chosen = self._drawn.codes == code
            player = self._drawn.table[code]
            if isinstance(player, tuple):  # pong_ai
                moves[chosen] = player[1].act_batch(vectors[games[chosen], other[chosen]])
            else:  # one forward for all the games it plays
                moves[chosen] = player(self._stacks[games[chosen], other[chosen]])
        return moves

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._vectors is None or self._actions is None:
            raise ArenaError(f"{self}: step() called before reset()")
        chosen = self._actions
        if chosen.dtype.kind not in "iu" or ((chosen < 0) | (chosen >= len(_RAW_MOVES))).any():
            raise ArenaError(f"{self}: actions must be pong_moves' 0-2, got {np.unique(chosen).tolist()}")
        n, games, seat = self.batch.num_games, np.arange(self.batch.num_games), self._seat
        raw = np.empty((n, 2), dtype=np.int64)
        raw[games, seat] = _RAW_MOVES[chosen]
        raw[games, 1 - seat] = self._opponent_moves(self._vectors)
        vectors, rewards, _, _, batch_infos = self.batch.step(raw)
        over = batch_infos["episode_over"]
        out = rewards[games, seat].astype(np.float32)

        # The pictures move on; the games that ended keep their last ones as terminal observations.
        self._stacks[:, :, :-1] = self._stacks[:, :, 1:]
        # Pictures for the learners, and for the opponents that read them (pong_ai reads the vector).
        seen = np.zeros((n, 2), dtype=bool)
        seen[games, seat] = True
        reads_pictures = np.array([not isinstance(player, tuple) for player in self._drawn.table])  # pong_ai: tuples
        seen[games, 1 - seat] = reads_pictures[self._drawn.codes]
        self._stacks[:, :, -1][seen] = self.stack.drawing.pictures(vectors[seen])
        if self.stack.shaping is not None:
            own = vectors[games, seat]
            returned = (self._last_vx < 0.0) & (own[:, 2] > 0.0) & (own[:, 0] < 0.3) & ~over
            out += np.where(returned, self.stack.shaping.pay(own[:, 3]), 0.0).astype(np.float32)
            self._last_vx = own[:, 2].copy()
        if self.stack.aim is not None:
            potential = self.stack.aim.potentials(vectors[games, seat], self._potential)
            out += np.where(over, 0.0, potential - self._potential).astype(np.float32)
            self._potential = potential
        infos: list[dict[str, Any]] = [{"seat": "player_1" if s else "player_0"} for s in seat.tolist()]
        for row, k in enumerate(np.flatnonzero(over).tolist()):
            infos[k]["terminal_observation"] = self._stacks[k, seat[k]].copy()
            infos[k]["TimeLimit.truncated"] = False
            infos[k]["score"] = tuple(int(v) for v in batch_infos["final_score"][row, [seat[k], 1 - seat[k]]])
        if over.any():
            self._seat[over] = 1 - self._seat[over]
            self._draw(over)
            self._start_stacks(vectors, over)
        self._vectors = vectors
        return self._learner_view(), out, over.copy(), infos

    def close(self) -> None:
        """Nothing to release: the batch lives in this process."""

    def __str__(self) -> str:
        return f"<PongTraining {self.batch} behind {self.interface}>"

    __repr__ = __str__


def pong_vec_env(
    env: str,
    num_games: int,
    opponents: Agent | OpponentPool,
    *,
    interface: Interface | None,
    env_options: Mapping[str, Any],
) -> PongTraining:
    """The ``pong_2p`` trainer env (``arena.vec_envs``): ``num_games`` games, one learner seat each.

    Called by :func:`arena.training.vectorised.own_vec_env` with the run's env, games, opponents,
    the learner's stack and the env options.

    Raises:
        ValueError: an env other than ``pong_2p``, options the batch does not honour (the
            ``"frame"`` observation: the stack draws from the vector), a stack it cannot run,
            opponents that cannot play it.

    Example:
        >>> from arena.specs.interfaces import build_interface
        >>> venv = pong_vec_env("pong_2p", 2, PongAIAgent(), env_options={"rounds": 5},
        ...                     interface=build_interface("pong_moves(pong_frames(scale=4, frames=2))"))
        >>> venv.num_envs, venv.batch.rounds
        (2, 5)
    """
    if env != "pong_2p":
        raise InvalidValueError(f"the pong_2p trainer trains the pong_2p env, got {env!r}")
    options = dict(env_options)
    unknown = sorted(set(options) - set(_GAME_OPTIONS) - set(_DRAWING_OPTIONS) - {"observation"})
    if unknown or options.get("observation", "vector") != "vector":
        raise InvalidValueError(
            f"the pong_2p trainer takes the options {', '.join(_GAME_OPTIONS)} (vector observations), got {sorted(options)}"
        )
    game = {key: options[key] for key in _GAME_OPTIONS if key in options}
    return PongTraining(PongBatch(num_games, **game), interface, opponents)
