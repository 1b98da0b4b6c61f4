"""How :class:`~arena.training.batched.BatchVecEnv` steps a batch whose live players all move at once.

Internal to the batched trainer: ``SnakeBatch``, ``PommermanBatch``, Pong-2p's and MAgent2's
batches and worker batches (``turns`` ``"simultaneous"`` or ``"sides"``) are stepped here, a seat
or a whole side of the learner per game; :mod:`arena.training.alternating_turns` steps board games.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.batched_stack import take_rows
from arena.training.pool import OpponentPool

__all__ = ["SimultaneousTurns"]


def _put(observations: Any, index: Any, rows: Any) -> None:
    """``observations[index] = rows`` through dicts and tuples (``rows=None``: zeros)."""
    if isinstance(observations, dict):
        for key, value in observations.items():
            _put(value, index, None if rows is None else rows[key])
    elif isinstance(observations, tuple):
        for k, value in enumerate(observations):
            _put(value, index, None if rows is None else rows[k])
    else:
        observations[index] = 0 if rows is None else rows


class SimultaneousTurns:
    """The per-game state and the stepping of a simultaneous batch, for one :class:`BatchVecEnv`.

    Sub-env ``k`` is member ``k % S`` of the learner's side in game ``k // S`` (``S`` is 1 but
    in team mode); opponent seat ``p`` of game ``g`` is slot ``g * players + p`` of the batched
    opponents. :class:`BatchVecEnv`'s docstring gives the rules.
    """

    def __init__(self, venv: Any) -> None:
        self.venv = venv  # the BatchVecEnv it steps (this module does not import it: no circle)
        games, players = venv.batch.num_games, len(venv.env.possible_agents)
        size = len(venv.sides[0])
        self.players = players
        self.opponent_slots = games * players
        self.lineup = np.full((games, players), -1, dtype=np.int64)  # opponent codes, -1: learner
        self.side = np.zeros(games, dtype=np.int64)  # index into venv.sides
        self.learner_seats = np.zeros((games, size), dtype=np.int64)
        self.slot_game = np.repeat(np.arange(games), size)
        self.out = np.zeros(venv.num_envs, dtype=bool)  # learner seats already out this episode
        self.all_legal = np.ones_like(venv.action_masks())  # the masks of a batch without masks
        self.boards: Any = None
        self.live: Any = None
        self.opponent_rewards = np.zeros((games, players), dtype=np.float64)  # each seat's reward last step
        # a batch that writes only the views read (PommermanBatch): the learner's seats and the
        # opponents' that read views, not those of opponents reading the batch's state
        self.viewed = np.ones((games, players), dtype=bool)  # the seats whose views the batch writes
        self.views_on_demand = callable(getattr(venv.batch, "set_view_seats", None)) and callable(
            getattr(venv.batch, "observe", None)
        )

    def deal(self, games: np.ndarray) -> None:
        """The learner's side and the opponents of every other seat in each of ``games`` (new episodes)."""
        venv = self.venv
        if not len(games):
            return
        rng, players, sides, opponents = venv._rng, self.players, venv.sides, venv.opponents
        if venv.shuffle_seats:
            self.side[games] = rng.integers(len(sides), size=len(games))
        else:
            self.side[games] = venv._rotation[games] % len(sides)
            venv._rotation[games] += 1
        self.learner_seats[games] = np.array(sides, dtype=np.int64)[self.side[games]]
        # one opponent for the whole other side (given once, team mode): one draw per game
        whole_side = venv.team and len({id(slot) for slot in opponents}) == 1
        for g in games.tolist():
            order = rng.permutation(len(opponents)) if venv.shuffle_seats else range(len(opponents))
            mine = set(self.learner_seats[g].tolist())
            others = [p for p in range(players) if p not in mine]
            self.lineup[g] = -1
            venv._fresh[g * players : (g + 1) * players] = True  # every opponent seat starts an episode
            if whole_side:
                slot = opponents[0]
                agent = slot.sample(rng) if isinstance(slot, OpponentPool) else slot
                self.lineup[g, others] = venv._code(agent)
                continue
            for slot_index, player in zip(order, others):
                slot = opponents[int(slot_index)]
                agent = slot.sample(rng) if isinstance(slot, OpponentPool) else slot
                self.lineup[g, player] = venv._code(agent)
        self.out[np.isin(self.slot_game, games)] = False

    def seats_of(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The games and player indices of opponent ``slots``."""
        return slots // self.players, slots % self.players

    def _read_views(self) -> np.ndarray:
        """``(games, players)``: the seats whose views this step's callers read (see ``views_on_demand``)."""
        reads = np.array([not agent.acts_on_batch for agent in self.venv._agents] + [True], dtype=bool)
        return reads[self.lineup]  # -1, the learner's seats, reads the last entry

    def _ask_views(self, games: np.ndarray) -> np.ndarray:
        """Ask the batch for the views read from now on; returns those of ``games`` that changed."""
        wanted = self._read_views()
        changed = games[(wanted[games] & ~self.viewed[games]).any(axis=1)]
        self.viewed = wanted
        self.venv.batch.set_view_seats(wanted)
        return changed

    def _raw_masks(self, infos: dict[str, Any], seats: np.ndarray) -> Any:
        masks = infos.get("action_mask")
        return None if masks is None else masks[self.slot_game, seats]

    def _masks(self, masks: Any) -> np.ndarray:
        return self.all_legal if masks is None else np.asarray(masks, dtype=bool)

    def reset(self) -> tuple[Any, np.ndarray]:
        """Start every game and deal its seats; the learner's first observations and masks."""
        venv = self.venv
        if self.views_on_demand:  # every view, until the seats are dealt
            self.viewed = np.ones((venv.batch.num_games, self.players), dtype=bool)
            venv.batch.set_view_seats(self.viewed)
        observations, infos = venv.batch.reset(seed=int(venv._rng.integers(2**31 - 1)))
        self.deal(venv._rows)
        if self.views_on_demand:
            self._ask_views(venv._rows)
        self.boards, self.live = observations, infos["live"]
        seats = self.learner_seats.reshape(-1)
        shown, masks = venv._learner.start(
            take_rows(observations, (self.slot_game, seats)), self._raw_masks(infos, seats)
        )
        return shown, self._masks(masks)

    def _opponent_actions(self, actions: np.ndarray) -> None:
        """Fill ``actions`` at every live opponent seat: one batched call per distinct opponent."""
        players = self.players
        waiting_games, waiting_players = np.nonzero(self.live & (self.lineup >= 0))
        codes = self.lineup[waiting_games, waiting_players]
        for code in np.unique(codes).tolist():
            which = codes == code
            g, p = waiting_games[which], waiting_players[which]
            # copies per game act with the reward since their seat last acted: every live seat acts each step
            rewards = self.opponent_rewards[g, p] if self.venv._players[code].copies is not None else None
            actions[g, p] = self.venv._act(code, take_rows(self.boards, (g, p)), None, g * players + p, rewards)

    def _finish_copies(self, rewards: Any, terminated: Any, truncated: Any, game_done: np.ndarray) -> None:
        """Keep this step's rewards for the copies per game and tell those whose seats were live before the step
        and whose episodes ended that they are done (:meth:`BatchedPlayer.finish`). Nothing without copies."""
        players = self.venv._players
        if not any(player.copies is not None for player in players):
            return  # batched opponents get no rewards: nothing to keep on the hot path
        shape = self.lineup.shape
        self.opponent_rewards = np.asarray(rewards, dtype=np.float64).reshape(shape)
        ended = np.asarray(terminated | truncated, dtype=bool).reshape(shape) | game_done[:, None]
        cut = np.asarray(truncated & ~terminated, dtype=bool).reshape(shape)
        g, p = np.nonzero(self.live & ended & (self.lineup >= 0))
        codes = self.lineup[g, p]
        for code in np.unique(codes).tolist():
            if players[code].copies is not None:
                which = codes == code
                gw, pw = g[which], p[which]
                players[code].finish(gw * self.players + pw, self.opponent_rewards[gw, pw], cut[gw, pw])

    def step(self, chosen: np.ndarray) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step every game with the learner's ``chosen`` actions; the VecEnv's step, masks second."""
        venv = self.venv
        batch, slot_game, seats = venv.batch, self.slot_game, self.learner_seats.reshape(-1)
        games, num_envs, member_done = batch.num_games, venv.num_envs, venv.member_done
        shape = tuple(batch.single_action_space.shape or ())
        actions = np.zeros((games, self.players, *shape), dtype=batch.single_action_space.dtype)
        # the learner's actions in its own space (an interface may map Discrete to the raw buttons)
        chosen = chosen.reshape(num_envs, *(venv.action_space.shape or ()))
        actions[slot_game, seats] = np.asarray(venv._learner.action(chosen)).reshape(num_envs, *shape)
        self._opponent_actions(actions)
        was_out = self.out.copy()  # members out of play before this step
        shown = take_rows(self.boards, (slot_game, seats)) if member_done else None  # each member's last view
        observations, rewards, terminated, truncated, infos = batch.step(actions)
        raw_rewards = rewards[slot_game, seats].astype(np.float64)
        over = infos["episode_over"]
        seat_term, seat_cut = terminated[slot_game, seats], truncated[slot_game, seats]
        self.out |= seat_term | seat_cut
        side_out = self.out.reshape(games, -1).all(axis=1)
        game_done = over | side_out
        dones = game_done[slot_game]
        if member_done:  # a member's episode is its life: done when it leaves, not again at the game's end
            raw_rewards[was_out] = 0.0
            dones = (dones & ~was_out) | (self.out & ~was_out)
        cut = dones & seat_cut & ~seat_term
        finals = take_rows(observations, (slot_game, seats))  # a copy: the learner's last views, before any restart
        if shown is not None:  # a member that left mid-game: the view it was shown last
            _put(finals, self.out & ~was_out, take_rows(shown, self.out & ~was_out))
        if over.any():  # the batch keeps the ended games' final observations in game order
            row_of = np.cumsum(over) - 1
            in_over = over[slot_game]
            ended = take_rows(infos["final_observation"], (row_of[slot_game[in_over]], seats[in_over]))
            _put(finals, in_over, ended)
        live = infos["live"]
        self._finish_copies(rewards, terminated, truncated, game_done)  # self.live: the seats live before the step
        self.deal(np.flatnonzero(game_done))
        left = np.flatnonzero(side_out & ~over)  # the learner's side is out, the game goes on: end it for it
        if self.views_on_demand:  # the games restarted with the seats of their last episode: their new ones
            changed = self._ask_views(np.flatnonzero(over))
            if len(changed):
                _put(observations, changed, batch.observe(changed))
        if len(left):
            _put(observations, left, batch.restart(left))
            live = batch.live
        self.boards, self.live = observations, live
        seats_now = self.learner_seats.reshape(-1)
        obs, masks, reward, terminal = venv._learner.step(
            take_rows(observations, (slot_game, seats_now)),
            self._raw_masks(infos, seats_now),
            raw_rewards,
            dones,
            cut,
            take_rows(finals, dones),
            starting=game_done[slot_game] | dones,
            idle=was_out & ~dones if member_done else None,
        )
        if member_done and self.out.any():  # members out of play in a game that goes on see zeros
            _put(obs, self.out, None)
        if venv.team_spirit:
            reward = self._mixed(reward, ~was_out if member_done else np.ones(num_envs, dtype=bool))
        names = venv.env.possible_agents
        info_list: list[dict[str, Any]] = [{"seat": names[s]} for s in seats.tolist()]  # this step's episode
        for k, final in zip(np.flatnonzero(dones).tolist(), terminal):
            info_list[k]["terminal_observation"] = final
            info_list[k]["TimeLimit.truncated"] = bool(cut[k])
        return obs, self._masks(masks), reward, dones, info_list

    def _mixed(self, reward: np.ndarray, playing: np.ndarray) -> np.ndarray:
        """Each playing member's reward mixed with the mean over its game's playing members (``team_spirit``)."""
        size = self.learner_seats.shape[1]
        own = reward.reshape(-1, size).astype(np.float64)
        counted = playing.reshape(-1, size)
        mean = (own * counted).sum(axis=1) / np.maximum(counted.sum(axis=1), 1)
        spirit = self.venv.team_spirit
        mixed = np.where(counted, (1 - spirit) * own + spirit * mean[:, None], own)
        return mixed.reshape(-1).astype(np.float32)
