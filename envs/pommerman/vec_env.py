"""A Stable-Baselines3 ``VecEnv`` over a :class:`~envs.pommerman.batch.PommermanBatch`: learner seats, scripted sides.

This module imports Stable-Baselines3 when it is imported; a missing install raises an
ImportError naming arena's ``train`` extra.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.errors import ArenaError, InvalidValueError, ResetNeeded
from arena.training.in_process import InProcessVecEnv
from arena.training.pool import DrawnPlayers
from envs.pommerman.agents import PommermanSimpleBatch
from envs.pommerman.batch import PommermanBatch

__all__ = ["PommermanVecEnv"]

_SEATS: dict[str, dict[str, tuple[int, ...]]] = {
    "ffa": {"one": (0,)},
    "team": {"one": (0,), "team": (0, 2)},
    "radio": {"one": (0,), "team": (0, 2)},
}


class PommermanVecEnv(InProcessVecEnv):
    """Learner seats in ``num_games`` Pommerman games stepped together; the other seats played inside.

    Sub-env ``k`` is learner seat ``seats[k % len(seats)]`` of game ``k // len(seats)``:
    with ``seats="team"`` one policy plays both members of a side (parameter sharing; use
    ``ego=True`` so both see themselves in the same corner). The side each game's learners
    take alternates between episodes (``team_0``, then ``team_1``; FFA: seat 0, 1, 2, 3),
    so the policy plays every corner. Every other seat is played by an opponent player:
    ``"simple"`` (batched ``pommerman_simple``, :class:`~envs.pommerman.agents.PommermanSimpleBatch`),
    ``"random"``, or a callable mapping ``(n, planes, 11, 11)`` uint8 views to ``n`` moves
    (a frozen policy: one forward for all the games it plays). ``opponents`` is one player or a
    list of them (a pool): each game draws one uniformly at every episode's start (a player
    listed twice is drawn twice as often), and each step every player acts once for all its
    games. Observations are the batch's uint8 planes;
    rewards are each learner's own (the side's outcome in the team modes). A sub-env is done
    when its game ends; in FFA also when its learner dies (its game then starts again, as
    ``SingleAgentEnv`` does); in the team modes a learner that died earlier sees zeros and
    its moves are ignored until its side's outcome is known. A done sub-env's
    ``infos[k]["terminal_observation"]`` is the learner's view at its episode's end, as the batch
    drew it (its ``final_observation``; zeros for a learner out of play), while the returned
    observation already starts the next episode. Radio learners send the words 0, 0.

    Args:
        num_games: the number of games.
        mode: ``"ffa"``, ``"team"`` or ``"radio"``.
        seats: ``"one"`` (one learner per game) or ``"team"`` (both members of a side).
        opponents: ``"simple"``, ``"random"``, a callable, or a non-empty list of them (see above).
        ego: the batch's ego views and moves.
        seed: seeds the boards, the opponents and the side rotation (``reset`` restarts them).
        max_steps: the step limit.

    Raises:
        ValueError: unknown ``seats`` for the mode or unknown ``opponents`` (also :meth:`set_opponents`).

    Example:
        >>> import numpy as np
        >>> venv = PommermanVecEnv(4, "team", seats="team", opponents="simple", seed=0)
        >>> obs = venv.reset()
        >>> obs.shape, venv.num_envs
        ((8, 22, 11, 11), 8)
        >>> obs, rewards, dones, infos = venv.step(np.zeros(8, dtype=np.int64))
        >>> rewards.dtype, infos[0]["seat"]
        (dtype('float32'), 'agent_0')
    """

    def __init__(
        self,
        num_games: int,
        mode: str = "team",
        *,
        seats: str = "team",
        opponents: Any = "simple",
        ego: bool = True,
        seed: int | None = None,
        max_steps: int = 800,
    ) -> None:
        if mode in _SEATS and seats not in _SEATS[mode]:
            raise InvalidValueError(
                f"PommermanVecEnv: seats must be one of {sorted(_SEATS[mode])} in mode {mode!r}, got {seats!r}"
            )
        self.opponents = _players(opponents)
        self.batch = PommermanBatch(num_games, mode, ego=ego, max_steps=max_steps)
        self.mode, self.seed_value = mode, seed
        self._base = np.array(_SEATS[mode][seats], dtype=np.int64)
        self._sides = 4 if mode == "ffa" else 2
        self.render_mode = None
        super().__init__(
            num_games * len(self._base), self.batch.single_observation_space, self.batch.single_action_space
        )
        self._games = np.repeat(np.arange(num_games), len(self._base))
        self._rotation = np.zeros(num_games, dtype=np.int64)
        self._simple: PommermanSimpleBatch | None = None
        self._drawn = DrawnPlayers(num_games)  # each game's player this episode
        self._rng = np.random.default_rng(seed)
        self._actions: np.ndarray | None = None
        self._obs: np.ndarray | None = None

    def _learner_seats(self) -> np.ndarray:
        """The seat of every sub-env this episode: ``(num_envs,)``."""
        shift = self._rotation[self._games] % self._sides
        return (np.tile(self._base, self.batch.num_games) + shift) % 4

    def reset(self) -> np.ndarray:
        """Start every game (seeded by ``seed``/:meth:`seed`) and return the learners' views."""
        seed = self._seeds[0] if self._seeds[0] is not None else self.seed_value
        self._reset_seeds()
        self._rng = np.random.default_rng(seed)
        self._rotation[:] = 0
        observations, _ = self.batch.reset(seed=int(self._rng.integers(2**31 - 1)))
        self._simple = PommermanSimpleBatch(self.batch, seed=int(self._rng.integers(2**31 - 1)))
        self._drawn.clear()
        self._draw(np.arange(self.batch.num_games))
        self._observations = observations
        self._obs = observations[self._games, self._learner_seats()]
        return self._obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def set_opponents(self, opponents: Any) -> None:
        """Replace the opponents (one player or a list, as ``opponents`` takes them): each game
        draws from them when its next episode starts.

        Raises:
            ValueError: not a player or a non-empty list of players.
        """
        self.opponents = _players(opponents)

    def _draw(self, games: np.ndarray) -> None:
        """Each of ``games`` draws its opponent player for the episode it starts."""
        if len(games):
            picks = [self.opponents[int(self._rng.integers(len(self.opponents)))] for _ in games.tolist()]
            self._drawn.assign(games.tolist(), picks, self.opponents)

    def _opponent_moves(self, learners: np.ndarray) -> np.ndarray:
        batch = self.batch
        others = batch.live & ~learners
        moves = np.zeros((batch.num_games, 4), dtype=np.int64)
        for code in np.unique(self._drawn.codes).tolist():
            seats = others & (self._drawn.codes == code)[:, None]
            if not seats.any():
                continue
            player = self._drawn.table[code]
            if isinstance(player, str) and player == "simple":
                if self._simple is None:
                    raise ResetNeeded("PommermanVecEnv: step() before reset(); call reset() first")
                chosen = self._simple.act(seats)
                moves[seats] = (chosen[..., 0] if self.mode == "radio" else chosen)[seats]
            elif isinstance(player, str):  # "random"
                moves[seats] = self._rng.integers(0, 6, int(seats.sum()))
            else:  # one call (a frozen policy: one forward) for all the seats of all its games
                games, who = np.nonzero(seats)
                moves[games, who] = np.asarray(player(self._observations[games, who])).reshape(-1)
        return moves

    def step_wait(self):
        if self._obs is None:
            raise ArenaError(f"{self}: step() called before reset()")
        batch, games = self.batch, self._games
        seats = self._learner_seats()
        learners = np.zeros((batch.num_games, 4), dtype=bool)
        learners[games, seats] = True
        moves = self._opponent_moves(learners)
        moves[games, seats] = np.asarray(self._actions).reshape(self.num_envs)
        actions = moves
        if self.mode == "radio":
            actions = np.zeros(moves.shape + (3,), dtype=np.int64)
            actions[..., 0] = moves
        observations, rewards, terms, _, infos = batch.step(actions)
        out = rewards[games, seats].astype(np.float32)
        over = infos["episode_over"].copy()
        restarted = np.zeros(0, dtype=np.int64)
        if self.mode == "ffa":  # a dead bomber has lost: its episode ends, and its game starts again
            restarted = games[np.flatnonzero(terms[games, seats] & ~over[games])]
            over[restarted] = True
        dones = over[games]
        ended = np.flatnonzero(dones)
        finals = self._final_views(ended, observations, infos, seats)  # before a restart overwrites the views
        if len(restarted):
            observations[restarted] = batch.restart(restarted)
        self._rotation[over] += 1
        self._draw(np.flatnonzero(over))
        names = batch.possible_agents
        info_list: list[dict[str, Any]] = [{"seat": names[s]} for s in seats.tolist()]
        for k, final in zip(ended.tolist(), finals):
            info_list[k]["terminal_observation"] = final
            info_list[k]["TimeLimit.truncated"] = False
        self._observations = observations
        self._obs = observations[games, self._learner_seats()]
        return self._obs, out, dones, info_list

    def _final_views(
        self, ended: np.ndarray, observations: np.ndarray, infos: dict[str, Any], seats: np.ndarray
    ) -> np.ndarray:
        """The views that end the episodes of sub-envs ``ended``, as the batch drew them.

        A sub-env whose game ended takes its seat's row of the batch's ``final_observation``
        (the batch has already started the game again); an FFA learner out of a game that goes
        on takes its seat's view after this step (zeros: the batch draws none for a player out).
        """
        games = self._games[ended]
        views = observations[games, seats[ended]]  # a copy (fancy indexing)
        game_over = infos["episode_over"]
        in_ended_games = game_over[games]
        if in_ended_games.any():
            rows = np.cumsum(game_over) - 1  # the batch keeps the ended games' final views in game order
            picked = games[in_ended_games]
            views[in_ended_games] = infos["final_observation"][rows[picked], seats[ended][in_ended_games]]
        return views

    def close(self) -> None:
        """Nothing to release: the batch lives in this process."""

    def __str__(self) -> str:
        return f"<PommermanVecEnv {self.num_envs} learner seats of {self.batch}>"

    __repr__ = __str__


def _players(opponents: Any) -> list[Any]:
    """``opponents`` as a non-empty list of players (``"simple"``, ``"random"``, callables)."""
    listed = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents]
    for player in listed:
        if not ((isinstance(player, str) and player in ("simple", "random")) or callable(player)):
            raise InvalidValueError(
                f"PommermanVecEnv: opponents must be 'simple', 'random' or a callable from views to moves "
                f"(or a non-empty list of them), got {player!r}"
            )
    if not listed:
        raise InvalidValueError("PommermanVecEnv: opponents must name at least one player, got an empty list")
    return listed
