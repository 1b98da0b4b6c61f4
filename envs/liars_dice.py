"""Liar's dice for three or more players: secret dice, rising bids, and elimination."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.env import MultiAgentEnv
from arena.errors import InvalidValueError
from envs._clone import clone_game

__all__ = ["LiarsDice", "CHALLENGE", "FACES"]

CHALLENGE = 0
FACES = 6


class LiarsDice(MultiAgentEnv):
    """Liar's dice (the elimination game) for 2 to 6 players (3 by default), ranked by when they drop out.

    Every player starts with ``dice`` six-sided dice. Each round, all players still in
    roll their dice in secret (seeded by ``reset(seed=...)``: round *r* gives each seat the
    same faces whatever happened before, so duplicate games share their dice). Then, in seat order, each
    player either raises the bid — a claim that at least *q* of all dice in play show
    face *f* — or calls the last bid a lie. A bid must be higher than the last: more dice,
    or as many dice and a higher face. No face is wild. On a challenge all dice are
    shown: if at least *q* show *f* the challenger loses a die, otherwise the bidder
    does. The loser starts the next round (or, if out of dice, the next player still in).
    A player with no dice left is out; the last player with dice wins.

    * **Observation** (only for the player to act): ``Box(0, high, (6 + 5 * players,),
      int8)``: ``[0:6]`` how many of the observer's own dice show faces 1 to 6 (never
      anyone else's dice); then, each over the seats ``player_0 ..``: a one-hot of the
      observer's seat, the dice each seat holds, the quantity and the face of each
      seat's latest bid in this round (0 if none), and a one-hot of the seat that made
      the standing bid (all 0 when the round has no bid yet).
    * **Action**: ``Discrete(1 + 6 * players * dice)``: 0 calls the standing bid a lie;
      ``1 + 6 * (q - 1) + (f - 1)`` bids *q* dice showing face *f* (higher bids have
      higher numbers). The mask allows the bids above the standing one with *q* at most
      the dice in play, and the challenge once a bid stands.
    * **Rewards** (zero-sum): a player gets ``(n + 1 - 2 * place) / (n - 1)`` when it
      leaves, where place 1 is the winner and place *n* the first out: +1, 0, -1 with
      three players. Every other step pays 0.
    * **End**: a player terminates when it loses its last die; the winner terminates
      when it is the only one left, which ends the episode. Ranks follow the places.

    Args:
        players: the number of players, 2 to 6 (three or more make it a ranking game).
        dice: the dice each player starts with, 1 to 5.
        render_mode: ``"ansi"`` to render the public state as text.

    Example:
        >>> env = LiarsDice(players=3, dice=1)
        >>> obs, infos = env.reset(options={"dice": [[5], [5], [2]]})
        >>> obs["player_0"][:6].tolist()  # player_0 sees only its own five
        [0, 0, 0, 0, 1, 0]
        >>> env.action_names("player_0")[env.bid_action(2, 5)]
        'bid 2 x 5'
    """

    metadata = {"render_modes": ["ansi"], "name": "liars_dice"}
    env_name = "liars_dice"
    perfect_information = False
    masked_actions = True  # legal moves in infos[agent]['action_mask']
    result_kind = "ranks"  # players place by when they drop out

    def __init__(self, players: int = 3, dice: int = 2, render_mode: str | None = None) -> None:
        if not isinstance(players, (int, np.integer)) or isinstance(players, bool) or not 2 <= players <= 6:
            raise InvalidValueError(f"LiarsDice: players must be an integer from 2 to 6, got {players!r}")
        if not isinstance(dice, (int, np.integer)) or isinstance(dice, bool) or not 1 <= dice <= 5:
            raise InvalidValueError(f"LiarsDice: dice must be an integer from 1 to 5, got {dice!r}")
        if render_mode not in (None, "ansi"):
            raise InvalidValueError(f"LiarsDice: render_mode must be None or 'ansi', got {render_mode!r}")
        self.players, self.dice, self.render_mode = int(players), int(dice), render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.agents = []
        n, total = self.players, self.players * self.dice
        self._seat_at = FACES
        self._dice_at = FACES + n
        self._quantity_at = FACES + 2 * n
        self._face_at = FACES + 3 * n
        self._bidder_at = FACES + 4 * n
        highs = np.ones(FACES + 5 * n, dtype=np.int8)
        highs[:FACES] = self.dice
        highs[self._dice_at : self._dice_at + n] = self.dice
        highs[self._quantity_at : self._quantity_at + n] = total
        highs[self._face_at : self._face_at + n] = FACES
        observation = spaces.Box(np.zeros_like(highs), highs, dtype=np.int8)
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        action: spaces.Discrete = spaces.Discrete(1 + FACES * total)
        self.action_spaces = {agent: action for agent in self.possible_agents}
        self._public = np.zeros(FACES + 5 * n, dtype=np.int8)
        self._own = np.zeros((n, FACES), dtype=np.int8)  # face counts per player
        self._rolls: list[list[int]] = [[] for _ in range(n)]
        self._held = [0] * n
        self._alive: list[int] = []
        self._bid = 0  # the standing bid's action number, 0 for none
        self._bidder = -1
        self._to_move = 0
        self._acting: tuple[str, ...] | None = None
        self._mask = np.zeros(1 + FACES * total, dtype=np.int8)
        self._log = ""

    # ---------------------------------------------------------------- actions
    @staticmethod
    def bid_action(quantity: int, face: int) -> int:
        """The action number of the bid "at least ``quantity`` dice show ``face``"."""
        return 1 + FACES * (quantity - 1) + (face - 1)

    @staticmethod
    def bid_of(action: int) -> tuple[int, int]:
        """The ``(quantity, face)`` of a bid action (``action`` >= 1)."""
        return (action - 1) // FACES + 1, (action - 1) % FACES + 1

    def action_names(self, agent: str) -> list[str]:
        """Readable names of the actions: ``"liar"``, then ``"bid 1 x 1"`` ... ``"bid 6 x 6"``."""
        return ["liar"] + [
            f"bid {q} x {f}" for q in range(1, self.players * self.dice + 1) for f in range(1, FACES + 1)
        ]

    def observation_text(self, agent: str, observation: np.ndarray) -> str:
        """What ``agent``'s own observation shows (its dice), read from the observation alone.

        Example:
            >>> env = LiarsDice(players=3, dice=2)
            >>> obs, _ = env.reset(options={"dice": [[5, 2], [1, 1], [3, 4]]})
            >>> env.observation_text("player_0", obs["player_0"])
            'your dice: 2 5'
        """
        counts = np.asarray(observation)[:FACES].tolist()
        faces = [str(face + 1) for face, count in enumerate(counts) for _ in range(int(count))]
        return f"your dice: {' '.join(faces) or 'none'}"

    # --------------------------------------------------------------- dynamics
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Give every player its dice and roll the first round; ``player_0`` bids first.

        Args:
            seed: seeds the rolls (the same seed and actions give the same game).
            options: ``{"dice": [[faces of player_0], [faces of player_1], ...]}`` fixes
                the first round's roll (each list holds ``dice`` faces from 1 to 6);
                later rounds are rolled at random.

        Raises:
            ValueError: the fixed dice do not fit the game.
        """
        super().reset(seed=seed)
        n = self.players
        self._held = [self.dice] * n
        self._alive = list(range(n))
        self._public[:] = 0
        self._public[self._dice_at : self._dice_at + n] = self.dice
        self._log = ""
        self.agents = list(self.possible_agents)
        # Round r rolls from its own generator keyed by (episode key, r), one row of dice per
        # seat: whatever happened before, the same seed rolls the same dice for each seat in
        # round r (duplicate games rely on it).
        self._chance_key = int(self.np_random.integers(2**63))
        self._round = -1
        fixed = options.get("dice") if options else None
        self._new_round(0, self._check_fixed(fixed) if fixed is not None else None)
        agent = self.possible_agents[0]
        return {agent: self._observation(0)}, {agent: {"action_mask": self._mask.copy()}}

    def _check_fixed(self, fixed: Any) -> list[list[int]]:
        rolls = [list(row) for row in fixed] if isinstance(fixed, Sequence) else None
        if (
            rolls is None
            or len(rolls) != self.players
            or any(
                len(row) != self.dice or any(type(f) is not int or not 1 <= f <= FACES for f in row) for row in rolls
            )
        ):
            raise InvalidValueError(
                f"{self}: options['dice'] must hold {self.players} lists of {self.dice} "
                f"faces from 1 to {FACES}, got {fixed!r}"
            )
        return rolls

    def _new_round(self, starter: int, rolls: list[list[int]] | None = None) -> None:
        self._round += 1
        if rolls is None:
            table = np.random.default_rng([self._chance_key, self._round]).integers(
                1, FACES + 1, size=(self.players, self.dice)
            )
            rolls = [table[seat, :held].tolist() for seat, held in enumerate(self._held)]
        self._rolls = rolls
        self._own[:] = 0
        for player, row in enumerate(rolls):
            for face in row:
                self._own[player, face - 1] += 1
        n = self.players
        self._public[self._quantity_at : self._bidder_at + n] = 0
        self._bid, self._bidder = 0, -1
        self._set_turn(starter)

    def _set_turn(self, player: int) -> None:
        self._to_move = player
        self._acting = (self.possible_agents[player],)
        mask = self._mask
        mask[:] = 0
        mask[CHALLENGE] = self._bid > 0
        mask[self._bid + 1 : 1 + FACES * sum(self._held)] = 1

    def _observation(self, player: int) -> np.ndarray:
        observation = self._public.copy()
        observation[:FACES] = self._own[player]
        observation[self._seat_at + player] = 1
        return observation

    def _next_alive(self, player: int) -> int:
        alive = self._alive
        for seat in alive:
            if seat > player:
                return seat
        return alive[0]

    def step(self, actions: Mapping[str, Any]):
        """Bid or challenge; see :meth:`MultiAgentEnv.step` for the edge cases."""
        mover = self._to_move
        agent = self.possible_agents[mover]
        action = self.turn_action(actions, self._acting, self._mask)
        live = [self.possible_agents[p] for p in self._alive]
        rewards = dict.fromkeys(live, 0.0)
        terminations = dict.fromkeys(live, False)
        if action != CHALLENGE:
            quantity, face = self.bid_of(action)
            self._bid, self._bidder = action, mover
            public, n = self._public, self.players
            public[self._quantity_at + mover] = quantity
            public[self._face_at + mover] = face
            public[self._bidder_at : self._bidder_at + n] = 0
            public[self._bidder_at + mover] = 1
            self._set_turn(self._next_alive(mover))
            return self._ask(rewards, terminations)
        quantity, face = self.bid_of(self._bid)
        shown = int(self._own[self._alive, face - 1].sum())
        loser = mover if shown >= quantity else self._bidder
        self._log = (
            f"{agent} called liar on {self.possible_agents[self._bidder]}'s bid {quantity} x {face}: "
            f"{shown} showed; {self.possible_agents[loser]} loses a die"
        )
        self._held[loser] -= 1
        self._public[self._dice_at + loser] -= 1
        if self._held[loser] == 0:
            place = len(self._alive)
            rewards[self.possible_agents[loser]] = self._place_reward(place)
            terminations[self.possible_agents[loser]] = True
            self.agents.remove(self.possible_agents[loser])
            starter = self._next_alive(loser)
            self._alive.remove(loser)
            self._log += " and is out"
            if len(self._alive) == 1:
                winner = self.possible_agents[self._alive[0]]
                rewards[winner] = self._place_reward(1)
                terminations[winner] = True
                self.agents = []
                self._acting = None
                self._log += f"; {winner} wins"
                return {}, rewards, terminations, dict.fromkeys(live, False), {a: {} for a in live}
        else:
            starter = loser
        self._new_round(starter)
        return self._ask(rewards, terminations)

    def _place_reward(self, place: int) -> float:
        n = self.players
        return (n + 1 - 2 * place) / (n - 1)

    def _ask(self, rewards: dict[str, float], terminations: dict[str, bool]):
        player = self._to_move
        agent = self.possible_agents[player]
        infos: dict[str, dict[str, Any]] = {a: {} for a in terminations}
        infos[agent] = {"action_mask": self._mask.copy()}
        return {agent: self._observation(player)}, rewards, terminations, dict.fromkeys(terminations, False), infos

    @property
    def acting_agents(self) -> tuple[str, ...]:
        """The agents that must act next (the player to move; empty when no game runs)."""
        return self._acting or ()

    def clone(self) -> LiarsDice:
        """An independent copy of this env, game in progress included (for planners)."""
        twin = clone_game(self, "_public", "_own", "_held", "_alive", "_mask")
        twin._rolls = [list(row) for row in self._rolls]
        return twin

    def sample_hidden_state(self, agent: str, observation: Any, rng: np.random.Generator) -> LiarsDice:
        """A copy of the game with every die ``agent`` cannot see rolled anew from ``rng``.

        ``agent``'s own dice are read from ``observation``; every other player's dice (as many
        as it holds, which is public) are rolled from ``rng``, and so is the seed of the later
        rounds' rolls. The bids are the public history, kept as they are. See
        :meth:`arena.MultiAgentEnv.sample_hidden_state`.

        Raises:
            UnknownAgentError: ``agent`` is not a player.
            ValueError: ``observation`` is not ``agent``'s observation of this game.

        Example:
            >>> env = LiarsDice(players=2, dice=2)
            >>> obs, _ = env.reset(options={"dice": [[6, 6], [1, 2]]})
            >>> twin = env.sample_hidden_state("player_0", obs["player_0"], np.random.default_rng(0))
            >>> twin._rolls[0], len(twin._rolls[1])
            ([6, 6], 2)
        """
        if agent not in self.possible_agents:
            raise self._unknown_agent(agent)
        seat = self.possible_agents.index(agent)
        observation = np.asarray(observation)
        counts = observation[:FACES] if observation.shape == self._public.shape else None
        if counts is None or observation[self._seat_at + seat] != 1 or int(counts.sum()) != self._held[seat]:
            raise InvalidValueError(
                f"{self}.sample_hidden_state: expected the current observation of {agent!r} "
                f"(its seat bit set, {self._held[seat]} dice), got {observation!r}"
            )
        twin = self.clone()
        twin._rolls = [rng.integers(1, FACES + 1, size=held).tolist() for held in self._held]
        twin._rolls[seat] = [face + 1 for face in range(FACES) for _ in range(int(counts[face]))]
        twin._own[:] = 0
        for player, row in enumerate(twin._rolls):
            for face in row:
                twin._own[player, face - 1] += 1
        twin._chance_key = int(rng.integers(2**63))
        twin._np_random, twin._np_seed = np.random.default_rng(int(rng.integers(2**63))), None
        return twin

    # -------------------------------------------------------------- rendering
    def render(self) -> str | None:
        """The public state as text: dice held, the standing bid, the last challenge."""
        if self.render_mode != "ansi":
            return None
        return self.table_text()

    def table_text(self) -> str:
        """The public state as text, whatever the render mode (nobody's dice are shown)."""
        if not self._alive:
            return "no game running\n"
        held = ", ".join(f"{self.possible_agents[p]} {self._held[p]}" for p in range(self.players))
        lines = [f"dice held: {held}"]
        if self._log:
            lines.append(f"last challenge: {self._log}")
        if self._acting is not None:
            if self._bid:
                quantity, face = self.bid_of(self._bid)
                lines.append(f"standing bid: {self.possible_agents[self._bidder]} bids {quantity} x {face}")
            else:
                lines.append("standing bid: none")
            lines.append(f"to act: {self.possible_agents[self._to_move]}")
        return "\n".join(lines) + "\n"
