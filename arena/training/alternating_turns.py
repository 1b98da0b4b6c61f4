"""How :class:`~arena.training.batched.BatchVecEnv` steps a two-player batch whose turns alternate.

Internal to the batched trainer: ``TicTacToeBatch`` and ``ConnectFourBatch`` (``turns``
``"alternating"``) are stepped here, the learner's seat in each game and the opponent's moves
played until the learner is to move everywhere again; :mod:`arena.training.simultaneous_turns`
steps the batches where all move at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.errors import ArenaError
from arena.training.pool import OpponentPool

__all__ = ["AlternatingTurns"]


class AlternatingTurns:
    """The per-game state and the stepping of an alternating batch, for one :class:`BatchVecEnv`.

    Sub-env ``g`` and opponent slot ``g`` are game ``g``. :class:`BatchVecEnv`'s docstring gives the rules.
    """

    def __init__(self, venv: Any) -> None:
        self.venv = venv  # the BatchVecEnv it steps (this module does not import it: no circle)
        games = venv.batch.num_games
        self.opponent_slots = games
        self.seat = np.zeros(games, dtype=np.int64)  # the learner's player index in each game
        self.opponent = np.zeros(games, dtype=np.int64)  # index into venv._agents
        self.pending = np.zeros(games, dtype=np.float64)  # the learner's rewards since its last action

    def deal(self, games: np.ndarray) -> None:
        """Choose the learner's seat and its opponent in each of ``games`` (new episodes)."""
        venv = self.venv
        if not len(games):
            return
        rng, sides = venv._rng, venv.sides
        if venv.shuffle_seats:
            self.seat[games] = [sides[i][0] for i in rng.integers(len(sides), size=len(games))]
        else:
            self.seat[games] = [sides[i][0] for i in venv._rotation[games] % len(sides)]
            venv._rotation[games] += 1
        slot = venv.opponents[0]
        for g in games.tolist():
            agent = slot.sample(rng) if isinstance(slot, OpponentPool) else slot
            self.opponent[g] = venv._code(agent)
        venv._fresh[games] = True

    def seats_of(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The games and player indices of opponent ``slots`` (slot ``g`` is game ``g``'s mover)."""
        return slots, self.venv.batch.to_play[slots]

    def reset(self) -> tuple[Any, np.ndarray]:
        """Start every game, deal it and play the opponents' first moves; the learner's observations and masks."""
        venv = self.venv
        self.pending[:] = 0.0
        observations, infos = venv.batch.reset(seed=int(venv._rng.integers(2**31 - 1)))
        self.deal(venv._rows)
        dones = np.zeros(venv.num_envs, dtype=bool)
        finals = np.zeros_like(observations)
        observations, masks = self._play_opponents(observations, infos["action_mask"], infos["to_play"], dones, finals)
        shown, masks = venv._learner.start(observations, masks)
        return shown, np.asarray(masks, dtype=bool)

    def step(self, chosen: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Move the learner in every game with ``chosen``, then the opponents; the VecEnv's step, masks second."""
        venv = self.venv
        rows, num_envs = venv._rows, venv.num_envs
        playing = self.seat.copy()  # the seats of this step's episodes (infos name them, as SingleAgentEnv)
        actions = np.asarray(venv._learner.action(chosen.reshape(num_envs)))
        observations, rewards, _, truncations, infos = venv.batch.step(actions.astype(np.int64, copy=False))
        self.pending += rewards[rows, self.seat]
        dones = np.zeros(num_envs, dtype=bool)
        cut = np.zeros(num_envs, dtype=bool)
        finals = np.zeros_like(observations)
        out = np.zeros(num_envs, dtype=np.float64)
        ended = rows[infos["episode_over"]]
        self._close(ended, infos["final_observation"], truncations[ended, self.seat[ended]], dones, finals, cut, out)
        observations, masks = self._play_opponents(
            observations, infos["action_mask"], infos["to_play"], dones, finals, cut, out
        )
        alive = ~dones
        out[alive] = self.pending[alive]
        self.pending[alive] = 0.0
        obs, masks, reward, terminal = venv._learner.step(observations, masks, out, dones, cut, finals[dones])
        seats = venv.env.possible_agents
        info_list: list[dict[str, Any]] = [{"seat": seats[s]} for s in playing.tolist()]
        for g, final in zip(np.flatnonzero(dones).tolist(), terminal):
            info_list[g]["terminal_observation"] = final
            info_list[g]["TimeLimit.truncated"] = bool(cut[g])
        return obs, np.asarray(masks, dtype=bool), reward, dones, info_list

    def _close(self, ended, final_boards, truncated, dones, finals, cut=None, out=None) -> None:
        """Games ``ended`` ended: keep their final boards and the learner's rewards, deal them again."""
        if not len(ended):
            return
        if out is None or cut is None or dones[ended].any():
            raise ArenaError(f"BatchVecEnv({self.venv.env}): an episode ended before the learner was asked to act")
        dones[ended] = True
        finals[ended] = final_boards
        cut[ended] = truncated
        out[ended] = self.pending[ended]
        self.pending[ended] = 0.0
        self.deal(ended)

    def _play_opponents(self, board, masks, to_play, dones, finals, cut=None, out=None):
        """Play the opponents' moves until the learner is to move in every game."""
        venv = self.venv
        while True:
            waiting = np.flatnonzero(to_play != self.seat)
            if not len(waiting):
                return board, masks
            actions = np.empty(len(waiting), dtype=np.int64)
            codes = self.opponent[waiting]
            for code in np.unique(codes).tolist():
                which = codes == code
                games = waiting[which]
                actions[which] = venv._act(code, board[games], masks[games], games)
            obs, rewards, _, truncations, infos = venv.batch.step(actions, games=waiting)
            rows = np.arange(len(waiting))
            self.pending[waiting] += rewards[rows, self.seat[waiting]]
            board[waiting], masks[waiting], to_play[waiting] = obs, infos["action_mask"], infos["to_play"]
            over = infos["episode_over"]
            cuts = truncations[rows[over], self.seat[waiting[over]]]
            self._close(waiting[over], infos["final_observation"], cuts, dones, finals, cut, out)
