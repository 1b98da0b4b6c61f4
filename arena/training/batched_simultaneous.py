"""The batched trainer for simultaneous-move batches (``SnakeBatch``): one learner seat per game."""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.errors import ArenaError
from arena.training.batched import BatchVecEnv
from arena.training.pool import OpponentPool

__all__ = ["SimultaneousBatchVecEnv"]


class SimultaneousBatchVecEnv(BatchVecEnv):
    """:class:`BatchVecEnv` for batches where every live player moves at once (``SnakeBatch``).

    The batch's ``step`` takes a ``(num_games, players)`` action array and reports
    ``infos["live"]``; the learner fills its column and every opponent seat gets its
    action from one ``act_batch`` call per distinct opponent over all the games and seats
    it plays. The learner's episode ends when its player is out (terminated), when the
    game is cut (truncated) or ends; a game the learner has left is restarted at once
    (``batch.restart``), as :class:`SingleAgentEnv` ends the episode for the learner.
    Rewards are the learner's own, each step. The batch has no action masks, so
    ``action_masks`` are all True. Seats, pools, seeding and errors are
    :class:`BatchVecEnv`'s; with several opponent slots, ``shuffle_seats`` also deals them
    to the other seats in random order, as :class:`SingleAgentEnv` does.

    Example:
        >>> venv = SimultaneousBatchVecEnv("snake", 3, "random", shuffle_seats=True,
        ...                                env_kwargs={"height": 8, "width": 8, "num_snakes": 2})
        >>> venv.seed(0)
        [0, 1, 2]
        >>> venv.reset().shape
        (3, 8, 8, 8)
    """

    _turn_based = False

    def _setup_state(self) -> None:
        players = len(self.env.possible_agents)
        self._lineup = np.full((self.num_envs, players), -1, dtype=np.int64)  # opponent codes, -1: learner

    def _deal(self, games: np.ndarray) -> None:
        if not len(games):
            return
        rng = self._rng
        players = len(self.env.possible_agents)
        if self.shuffle_seats:
            self._seat[games] = self._seat_index[rng.integers(len(self.seats), size=len(games))]
        else:
            self._seat[games] = self._seat_index[self._rotation[games] % len(self.seats)]
            self._rotation[games] += 1
        for g in games.tolist():
            order = rng.permutation(len(self.opponents)) if self.shuffle_seats else range(len(self.opponents))
            others = [p for p in range(players) if p != self._seat[g]]
            self._lineup[g] = -1
            for slot_index, player in zip(order, others):
                slot = self.opponents[int(slot_index)]
                agent = slot.sample(rng) if isinstance(slot, OpponentPool) else slot
                self._lineup[g, player] = self._code(agent)

    def reset(self) -> np.ndarray:
        self._begin_reset()
        observations, infos = self.batch.reset(seed=int(self._rng.integers(2**31 - 1)))
        self._deal(self._rows)
        self._started = True
        self._boards, self._live = observations, infos["live"]
        return self._observe(observations[self._rows, self._seat], self._masks)

    def step_wait(self):
        if not self._started:
            raise ArenaError(f"{self}: step() called before reset()")
        batch, rows = self.batch, self._rows
        actions = np.zeros(self._lineup.shape, dtype=np.int64)
        actions[rows, self._seat] = np.asarray(self._actions).reshape(self.num_envs)
        waiting = self._live & (self._lineup >= 0)
        games, players = np.nonzero(waiting)
        codes = self._lineup[games, players]
        for code in np.unique(codes).tolist():
            which = codes == code
            g, p = games[which], players[which]
            actions[g, p] = self._agents[code].act_batch(self._boards[g, p], None)
        observations, rewards, died, truncated, infos = batch.step(actions)
        seat = self._seat
        out = rewards[rows, seat].astype(np.float32)
        over = infos["episode_over"]
        learner_died, learner_cut = died[rows, seat], truncated[rows, seat]
        dones = learner_died | learner_cut | over
        live = infos["live"]
        left = np.flatnonzero(dones & ~over)  # the learner is out, the game goes on: end it for the learner
        if len(left):
            observations[left] = batch.restart(left)
            live = batch.live
        last = self._obs
        if last is None:  # no observation yet: reset() has not run
            raise ArenaError(f"{self}: step() called before reset()")
        ended = np.flatnonzero(dones)
        self._deal(ended)
        self._boards, self._live = observations, live
        self._observe(observations[rows, seat], self._masks)
        seats = self.env.possible_agents
        info_list: list[dict[str, Any]] = [{"seat": seats[s]} for s in seat.tolist()]
        for g in ended.tolist():
            info_list[g]["terminal_observation"] = last[g]
            info_list[g]["TimeLimit.truncated"] = bool(learner_cut[g] and not learner_died[g])
        return self._obs, out, dones, info_list
