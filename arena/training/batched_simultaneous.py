"""The batched trainer for simultaneous-move batches (``SnakeBatch``, ``PommermanBatch``): a seat or a side per game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arena.agents.base import Agent
from arena.batched_stack import take_rows
from arena.errors import ArenaError, InvalidValueError
from arena.registry import make_agent
from arena.training.batched import BatchVecEnv
from arena.training.learner_arguments import Opponent
from arena.training.pool import OpponentPool

__all__ = ["SimultaneousBatchVecEnv"]


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


class SimultaneousBatchVecEnv(BatchVecEnv):
    """:class:`BatchVecEnv` for batches where every live player moves at once (``SnakeBatch``).

    The batch's ``step`` takes a ``(num_games, players)`` action array and reports
    ``infos["live"]``; the learner fills its seats and every opponent seat gets its action
    from one batched call per distinct opponent over all the games and seats it plays. A
    game the learner's seats have all left (terminated or truncated) ends for the learner
    and is restarted at once (``batch.restart``), as :class:`SingleAgentEnv` ends the
    episode for the learner; a game that ends on its own ends it too. Rewards are each
    seat's own, each step. A batch without masks (no ``infos["action_mask"]``) gets
    all-True ``action_masks``. Seats, pools, seeding, the interface stack and errors are
    :class:`BatchVecEnv`'s; with several opponent slots, ``shuffle_seats`` also deals them to
    the other seats in random order, as :class:`SingleAgentEnv` does. A batch that can write only
    some seats' views (``set_view_seats`` and ``observe``: ``PommermanBatch``) is asked for those
    read: the learner's seats and those of opponents acting on views, not of opponents reading
    the batch's state (``Agent.act_on_batch``); what the learner and the opponents see is unchanged.

    With ``team=True`` the learner plays every seat of its side in each game (parameter
    sharing: one policy, ``env.teams`` gives the sides): sub-env ``k`` is member ``k % S`` of
    the learner's side in game ``k // S`` (``num_envs = games x S``), each with its own copy
    of the interface stack (ego views come from the stack or the batch). The learner's side
    is taken in turn (or drawn, ``shuffle_seats``) among the sides holding one of ``seats``;
    opponents fill the other seats: one opponent (an agent, a spec or a pool) plays the whole
    other side, drawn once per game from a pool and acting for all its seats in one call (an
    army is one player); a sequence gives one per other seat. A member that is out while its
    side plays on sees what the batch shows it (zeros for a bomber out of play) and earns what
    the batch pays it, until its side's episode ends.

    With ``member_done=True`` (team mode) a member that leaves the game (killed in a MAgent2
    battle) is *done* at that step, with its last observation as ``terminal_observation``; until
    its game ends its slot sees zeros, earns nothing and its actions are ignored, and it is not
    done again when the game ends (PettingZoo's "black death"): each member's episode is its own
    life. ``team_spirit`` mixes the rewards of the members in play: each one's is
    ``(1 - team_spirit) x`` its own ``+ team_spirit x`` the mean over its side's members that
    acted in that step (OpenAI Five's name).

    Args:
        team: the learner plays every seat of its side (see above).
        member_done: a member's episode ends when it leaves the game (team mode).
        team_spirit: the share of each member's reward that is its side's mean, in [0, 1] (team mode).
        Others: as :class:`BatchVecEnv` takes them.

    Raises:
        ValueError: ``team=True`` on an env without equal sides (``env.teams``); ``member_done`` or a
            nonzero ``team_spirit`` without ``team=True``; a ``team_spirit`` outside [0, 1].

    Example:
        >>> venv = SimultaneousBatchVecEnv("snake", 3, "random", shuffle_seats=True,
        ...                                env_kwargs={"height": 8, "width": 8, "num_snakes": 2})
        >>> venv.seed(0)
        [0, 1, 2]
        >>> venv.reset().shape
        (3, 8, 8, 8)
    """

    _turn_based = False

    def __init__(
        self, *args: Any, team: bool = False, member_done: bool = False, team_spirit: float = 0.0, **kwargs: Any
    ) -> None:
        self.team = bool(team)
        spirit = team_spirit
        if isinstance(spirit, bool) or not isinstance(spirit, (int, float)) or not 0 <= spirit <= 1:
            raise InvalidValueError(
                f"SimultaneousBatchVecEnv: team_spirit must be a number in [0, 1], got {team_spirit!r}"
            )
        if (member_done or spirit) and not self.team:
            raise InvalidValueError(
                "SimultaneousBatchVecEnv: member_done and team_spirit are about the members of the learner's side: "
                "they need team=True"
            )
        self.member_done, self.team_spirit = bool(member_done), float(spirit)
        super().__init__(*args, **kwargs)

    def set_opponents(self, opponents: Opponent | Sequence[Opponent]) -> None:
        """As :meth:`BatchVecEnv.set_opponents`; in team mode one opponent given once plays the whole other side."""
        if self.team and isinstance(opponents, (Agent, OpponentPool, str)):
            one = make_agent(opponents) if isinstance(opponents, str) else opponents
            count = self._opponent_count() or 0
            super().set_opponents([one] * count)
            return
        super().set_opponents(opponents)

    def _seats_per_game(self) -> int:
        if not self.team:
            return 1
        sides = self._sides()
        return len(sides[0])

    def _sides(self) -> list[tuple[int, ...]]:
        """The learner's possible sides as player indices (team mode), checked; worked out once."""
        known = self.__dict__.get("_known_sides")
        if known is not None:
            return known
        teams = self.env.teams or {}
        index = {agent: i for i, agent in enumerate(self.env.possible_agents)}
        sides = [tuple(index[a] for a in members) for members in teams.values()]
        if not sides or len({len(side) for side in sides}) != 1:
            raise InvalidValueError(
                f"SimultaneousBatchVecEnv({self.env}): team=True needs an env whose sides (env.teams) all have "
                f"the same number of seats, got {teams or 'no sides'}"
            )
        wanted = {index[seat] for seat in self.seats}
        self._known_sides = [side for side in sides if wanted & set(side)]
        return self._known_sides

    def _opponent_count(self) -> int | None:
        return len(self.env.possible_agents) - self._seats_per_game() if self.team else None

    def _setup_state(self) -> None:
        games, players, size = self.batch.num_games, len(self.env.possible_agents), self._seats_per_game()
        self._players_per_game = players
        self._opponent_slots = games * players  # BatchedPlayer slot of seat p in game g: g * players + p
        self._fresh = np.zeros(games * players, dtype=bool)
        self._lineup = np.full((games, players), -1, dtype=np.int64)  # opponent codes, -1: learner
        self._team_sides = self._sides() if self.team else [(int(s),) for s in self._seat_index]
        self._side = np.zeros(games, dtype=np.int64)  # index into self._team_sides
        self._learner_seats = np.zeros((games, size), dtype=np.int64)
        self._slot_game = np.repeat(np.arange(games), size)
        self._out = np.zeros(self.num_envs, dtype=bool)  # learner seats already out this episode
        self._legal = np.ones_like(self._masks)
        # a batch that writes only the views read (PommermanBatch): the learner's seats and the
        # opponents' that read views, not those of opponents reading the batch's state
        self._viewed = np.ones((games, players), dtype=bool)  # the seats whose views the batch writes
        self._views_on_demand = callable(getattr(self.batch, "set_view_seats", None)) and callable(
            getattr(self.batch, "observe", None)
        )

    def _deal(self, games: np.ndarray) -> None:
        if not len(games):
            return
        rng, players, sides = self._rng, self._players_per_game, self._team_sides
        if self.shuffle_seats:
            self._side[games] = rng.integers(len(sides), size=len(games))
        else:
            self._side[games] = self._rotation[games] % len(sides)
            self._rotation[games] += 1
        table = np.array(sides, dtype=np.int64)
        self._learner_seats[games] = table[self._side[games]]
        self._seat[games] = self._learner_seats[games, 0]
        # one opponent for the whole other side (given once, team mode): one draw per game
        whole_side = self.team and len({id(slot) for slot in self.opponents}) == 1
        for g in games.tolist():
            order = rng.permutation(len(self.opponents)) if self.shuffle_seats else range(len(self.opponents))
            mine = set(self._learner_seats[g].tolist())
            others = [p for p in range(players) if p not in mine]
            self._lineup[g] = -1
            self._fresh[g * players : (g + 1) * players] = True  # every opponent seat starts an episode
            if whole_side:
                slot = self.opponents[0]
                agent = slot.sample(rng) if isinstance(slot, OpponentPool) else slot
                self._lineup[g, others] = self._code(agent)
                continue
            for slot_index, player in zip(order, others):
                slot = self.opponents[int(slot_index)]
                agent = slot.sample(rng) if isinstance(slot, OpponentPool) else slot
                self._lineup[g, player] = self._code(agent)
        self._out[np.isin(self._slot_game, games)] = False

    def _read_views(self) -> np.ndarray:
        """``(games, players)``: the seats whose views this step's callers read (see ``_views_on_demand``)."""
        reads = np.array([not agent.acts_on_batch for agent in self._agents] + [True], dtype=bool)
        return reads[self._lineup]  # -1, the learner's seats, reads the last entry

    def _ask_views(self, games: np.ndarray) -> np.ndarray:
        """Ask the batch for the views read from now on; returns those of ``games`` that changed."""
        wanted = self._read_views()
        changed = games[(wanted[games] & ~self._viewed[games]).any(axis=1)]
        self._viewed = wanted
        self.batch.set_view_seats(wanted)
        return changed

    def _seats_of(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        players = self._players_per_game  # opponent slot of player p in game g: g * players + p
        return slots // players, slots % players

    def _slot_seats(self) -> np.ndarray:
        """The learner's player index in each sub-env."""
        return self._learner_seats.reshape(-1)

    def _raw_masks(self, infos: dict[str, Any], seats: np.ndarray) -> Any:
        masks = infos.get("action_mask")
        return None if masks is None else masks[self._slot_game, seats]

    def reset(self) -> Any:
        self._begin_reset()
        if self._views_on_demand:  # every view, until the seats are dealt
            self._viewed = np.ones((self.batch.num_games, self._players_per_game), dtype=bool)
            self.batch.set_view_seats(self._viewed)
        observations, infos = self.batch.reset(seed=int(self._rng.integers(2**31 - 1)))
        self._deal(self._rows)
        if self._views_on_demand:
            self._ask_views(self._rows)
        self._started = True
        self._boards, self._live = observations, infos["live"]
        seats = self._slot_seats()
        self._obs, masks = self._learner.start(
            take_rows(observations, (self._slot_game, seats)), self._raw_masks(infos, seats)
        )
        self._masks = self._all_legal() if masks is None else np.asarray(masks, dtype=bool)
        return self._obs

    def _all_legal(self) -> np.ndarray:
        return self._legal  # a batch without masks: every action is legal

    def step_wait(self):
        if not self._started or self._obs is None:
            raise ArenaError(f"{self}: step() called before reset()")
        batch, slot_game, seats = self.batch, self._slot_game, self._slot_seats()
        games, players = self.batch.num_games, self._players_per_game
        shape = tuple(batch.single_action_space.shape or ())
        actions = np.zeros((games, players, *shape), dtype=batch.single_action_space.dtype)
        # the learner's actions in its own space (an interface may map Discrete to the raw buttons)
        chosen = np.asarray(self._actions).reshape(self.num_envs, *(self.action_space.shape or ()))
        actions[slot_game, seats] = np.asarray(self._learner.action(chosen)).reshape(self.num_envs, *shape)
        waiting_games, waiting_players = np.nonzero(self._live & (self._lineup >= 0))
        codes = self._lineup[waiting_games, waiting_players]
        for code in np.unique(codes).tolist():
            which = codes == code
            g, p = waiting_games[which], waiting_players[which]
            actions[g, p] = self._act(code, take_rows(self._boards, (g, p)), None, g * players + p)
        was_out = self._out.copy()  # members out of play before this step
        shown = take_rows(self._boards, (slot_game, seats)) if self.member_done else None  # each member's last view
        observations, rewards, terminated, truncated, infos = batch.step(actions)
        raw_rewards = rewards[slot_game, seats].astype(np.float64)
        over = infos["episode_over"]
        seat_term, seat_cut = terminated[slot_game, seats], truncated[slot_game, seats]
        self._out |= seat_term | seat_cut
        side_out = self._out.reshape(games, -1).all(axis=1)
        game_done = over | side_out
        dones = game_done[slot_game]
        if self.member_done:  # a member's episode is its life: done when it leaves, not again at the game's end
            raw_rewards[was_out] = 0.0
            dones = (dones & ~was_out) | (self._out & ~was_out)
        cut = dones & seat_cut & ~seat_term
        finals = take_rows(observations, (slot_game, seats))  # a copy: the learner's last views, before any restart
        if shown is not None:  # a member that left mid-game: the view it was shown last
            _put(finals, self._out & ~was_out, take_rows(shown, self._out & ~was_out))
        if over.any():  # the batch keeps the ended games' final observations in game order
            row_of = np.cumsum(over) - 1
            in_over = over[slot_game]
            ended = take_rows(infos["final_observation"], (row_of[slot_game[in_over]], seats[in_over]))
            _put(finals, in_over, ended)
        live = infos["live"]
        self._deal(np.flatnonzero(game_done))
        left = np.flatnonzero(side_out & ~over)  # the learner's side is out, the game goes on: end it for it
        if self._views_on_demand:  # the games restarted with the seats of their last episode: their new ones
            changed = self._ask_views(np.flatnonzero(over))
            if len(changed):
                _put(observations, changed, batch.observe(changed))
        if len(left):
            _put(observations, left, batch.restart(left))
            live = batch.live
        self._boards, self._live = observations, live
        seats_now = self._slot_seats()
        self._obs, masks, reward, terminal = self._learner.step(
            take_rows(observations, (slot_game, seats_now)),
            self._raw_masks(infos, seats_now),
            raw_rewards,
            dones,
            cut,
            take_rows(finals, dones),
            starting=game_done[slot_game] | dones,
            idle=was_out & ~dones if self.member_done else None,
        )
        if self.member_done and self._out.any():  # members out of play in a game that goes on see zeros
            _put(self._obs, self._out, None)
        if self.team_spirit:
            reward = self._mixed(reward, ~was_out if self.member_done else np.ones(self.num_envs, dtype=bool))
        self._masks = self._all_legal() if masks is None else np.asarray(masks, dtype=bool)
        names = self.env.possible_agents
        info_list: list[dict[str, Any]] = [{"seat": names[s]} for s in seats.tolist()]  # this step's episode
        for k, final in zip(np.flatnonzero(dones).tolist(), terminal):
            info_list[k]["terminal_observation"] = final
            info_list[k]["TimeLimit.truncated"] = bool(cut[k])
        return self._obs, reward, dones, info_list

    def _mixed(self, reward: np.ndarray, playing: np.ndarray) -> np.ndarray:
        """Each playing member's reward mixed with the mean over its game's playing members (``team_spirit``)."""
        size = self._seats_per_game()
        own = reward.reshape(-1, size).astype(np.float64)
        counted = playing.reshape(-1, size)
        mean = (own * counted).sum(axis=1) / np.maximum(counted.sum(axis=1), 1)
        spirit = self.team_spirit
        mixed = np.where(counted, (1 - spirit) * own + spirit * mean[:, None], own)
        return mixed.reshape(-1).astype(np.float32)
