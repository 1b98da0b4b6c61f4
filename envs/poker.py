"""Two-player limit poker with one private card each, the engine of Kuhn and Leduc poker.

:class:`LimitPoker` implements the betting (fold, check/call, bet/raise with a cap per
round), the deal seeded by ``reset(seed=...)``, per-player observations that never hold
the other player's card, and the showdown. :mod:`envs.kuhn_poker` and
:mod:`envs.leduc_poker` fix its parameters to the two classic games.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError
from envs._clone import clone_game
from envs._two_player import TwoPlayerGame

__all__ = ["LimitPoker", "FOLD", "CALL", "RAISE", "ACTION_NAMES"]

FOLD, CALL, RAISE = 0, 1, 2
ACTION_NAMES = ("fold", "check/call", "bet/raise")
_HISTORY_LETTERS = {CALL: "c", RAISE: "r"}
_AGENTS = ("player_0", "player_1")
_NO_CARD = -1


class LimitPoker(TwoPlayerGame):
    """Two-player limit poker: one private card each, an optional public card, fixed bets.

    Each player antes ``ante`` chips and is dealt one private card from a deck of
    ``len(ranks) * suits`` cards (only ranks matter). Betting rounds follow; before the
    second round (when there is one) a public card is dealt. ``player_0`` acts first in
    every round. The subclasses document the observation layout of each game.

    * **Action**: ``Discrete(3)``: 0 fold, 1 check or call, 2 bet or raise (by
      ``raise_sizes[round]`` chips above the current highest stake). The mask allows
      fold only when facing a bet and raise only while the round has had fewer than
      ``max_raises`` bets and raises.
    * **Observation** (only for the player to act): an int8 vector, see :meth:`layout`.
    * **Rewards** (zero-sum, in chips, at the end): on a fold the folder loses what it
      put in and the other player wins it; at showdown the better hand wins the
      other's stake, a tie pays 0. A pair with the public card beats any unpaired hand,
      otherwise the higher rank wins.
    * **End**: a fold, or the last betting round closing (check-check or a call),
      terminates both players.

    Args:
        ranks: the rank names, lowest first.
        suits: copies of each rank in the deck.
        ante: chips each player puts in before the deal.
        raise_sizes: the bet size of each betting round (its length is the number of rounds).
        max_raises: the most bets and raises in one round (the betting cap).
        render_mode: ``"ansi"`` to render the public state as text.
    """

    metadata = {"render_modes": ["ansi"], "name": "limit_poker"}
    perfect_information = False
    masked_actions = True  # legal moves in infos[agent]['action_mask']
    result_kind = "return"  # chips won per hand (OpenSpiel's and the poker literature's measure)

    def __init__(
        self,
        ranks: Sequence[str],
        suits: int,
        ante: int,
        raise_sizes: Sequence[int],
        max_raises: int,
        render_mode: str | None = None,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise InvalidValueError(f"{type(self).__name__}: render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.ranks = tuple(ranks)
        self.suits = int(suits)
        self.ante = int(ante)
        self.raise_sizes = tuple(int(size) for size in raise_sizes)
        self.max_raises = int(max_raises)
        self.rounds = len(self.raise_sizes)
        self.possible_agents = list(_AGENTS)
        self.agents = []
        layout = self.layout()
        highs = np.ones(layout["size"], dtype=np.int8)
        highs[layout["stakes"].start : layout["stakes"].stop] = self.max_stake
        observation = spaces.Box(np.zeros_like(highs), highs, dtype=np.int8)
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        action: spaces.Discrete = spaces.Discrete(3)
        self.action_spaces = {agent: action for agent in self.possible_agents}
        self._public = np.zeros(layout["size"], dtype=np.int8)  # the part both players see
        self._private_start = layout["private"].start
        self._public_start = layout["public"].start if "public" in layout else 0
        self._history_start = layout["history"].start
        self._stakes_start = layout["stakes"].start
        self._cards = [_NO_CARD, _NO_CARD, _NO_CARD]  # player_0, player_1, public (ranks)
        self._stakes = [0, 0]
        self._round = 0
        self._raises = 0
        self._acted = 0  # actions in this round
        self._history: list[list[int]] = []
        self._to_move = 0
        self._acting: tuple[str, ...] | None = None
        self._mask = np.zeros(3, dtype=np.int8)
        self._result = ""

    # ---------------------------------------------------------------- layout
    @property
    def max_stake(self) -> int:
        """The most chips one player can put in the pot in a hand."""
        return self.ante + self.max_raises * sum(self.raise_sizes)

    def layout(self) -> dict[str, Any]:
        """Where each piece of information sits in the observation vector.

        Returns:
            a dict of index ranges: ``seat`` (one-hot of the observer's seat),
            ``private`` (one-hot of the observer's card rank), ``public`` (one-hot of the
            public card rank, all 0 before it is dealt; absent in one-round games),
            ``history`` (per round, per action slot, two bits: check/call, bet/raise),
            ``stakes`` (chips put in by ``player_0`` and ``player_1``), and ``size``.
        """
        n_ranks, slots = len(self.ranks), self.max_raises + 2
        parts: dict[str, Any] = {"seat": range(0, 2), "private": range(2, 2 + n_ranks)}
        start = 2 + n_ranks
        if len(self.raise_sizes) > 1:
            parts["public"] = range(start, start + n_ranks)
            start += n_ranks
        history_size = len(self.raise_sizes) * slots * 2
        parts["history"] = range(start, start + history_size)
        start += history_size
        parts["stakes"] = range(start, start + 2)
        parts["size"] = start + 2
        return parts

    # -------------------------------------------------------------- dynamics
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Ante and deal; ``player_0`` acts first.

        Args:
            seed: seeds the deal (the same seed deals the same cards).
            options: ``{"cards": [card of player_0, card of player_1, public card]}``
                deals the given rank names instead of random cards (the public card
                only in games that have one; it may be left out to deal it at random).

        Raises:
            ValueError: the fixed cards are not in the deck.
        """
        super().reset(seed=seed)
        self._deal(options.get("cards") if options else None)
        self._public[:] = 0
        self._stakes = [self.ante, self.ante]
        self._public[self._stakes_start : self._stakes_start + 2] = self.ante
        self._round = 0
        self._raises = 0
        self._acted = 0
        self._history = [[]]
        self._to_move = 0
        self._result = ""
        self.agents = list(self.possible_agents)
        self._acting = ("player_0",)
        self._update_mask()
        return {"player_0": self._observation(0)}, {"player_0": {"action_mask": self._mask.copy()}}

    def _deal(self, fixed: Sequence[str] | None) -> None:
        deck_size = len(self.ranks) * self.suits
        needed = 3 if self.rounds > 1 else 2
        if fixed is None:
            order = self.np_random.permutation(deck_size)[:needed]
            self._cards = [int(card) // self.suits for card in order] + [_NO_CARD] * (3 - needed)
            return
        names = list(fixed)
        if not needed - (1 if self.rounds > 1 else 0) <= len(names) <= needed:
            raise InvalidValueError(
                f"{self}: options['cards'] must name {needed} cards "
                f"(player_0, player_1{', public' if needed == 3 else ''}), got {names!r}"
            )
        cards = []
        for name in names:
            if name not in self.ranks:
                raise InvalidValueError(
                    f"{self}: unknown card {name!r} in options['cards']; expected one of {list(self.ranks)}"
                )
            cards.append(self.ranks.index(name))
            if cards.count(cards[-1]) > self.suits:
                raise InvalidValueError(
                    f"{self}: options['cards'] {names!r} deals {name!r} more than the "
                    f"{self.suits} time(s) the deck holds it"
                )
        if len(cards) < needed:  # the public card at random from what is left
            left = [rank for rank in range(len(self.ranks)) for _ in range(self.suits - cards.count(rank))]
            cards.append(left[int(self.np_random.integers(len(left)))])
        self._cards = cards + [_NO_CARD] * (3 - needed)

    def step(self, actions: Mapping[str, Any]):
        """Apply the mover's bet; see :meth:`MultiAgentEnv.step` for the edge cases."""
        mover = self._to_move
        agent = _AGENTS[mover]
        action = self.turn_action(actions, self._acting, self._mask)
        other = 1 - mover
        if action == FOLD:
            lost = self._stakes[mover]
            self._result = f"{agent} folds; {_AGENTS[other]} wins {lost}"
            sign = -1.0 if mover == 0 else 1.0
            return self._end({"player_0": sign * lost, "player_1": -sign * lost})
        slot = self._history_start + (self._round * (self.max_raises + 2) + self._acted) * 2
        self._history[-1].append(action)
        self._acted += 1
        facing_bet = self._stakes[mover] < self._stakes[other]
        if action == RAISE:
            self._public[slot + 1] = 1
            self._stakes[mover] = self._stakes[other] + self.raise_sizes[self._round]
            self._public[self._stakes_start + mover] = self._stakes[mover]
            self._raises += 1
        else:
            self._public[slot] = 1
            if facing_bet:
                self._stakes[mover] = self._stakes[other]
                self._public[self._stakes_start + mover] = self._stakes[mover]
            if facing_bet or self._acted >= 2:  # a call, or the second check, closes the round
                if self._round + 1 == self.rounds:
                    return self._showdown()
                self._next_round()
                return self._ask(0)
        return self._ask(other)

    def _next_round(self) -> None:
        self._round += 1
        self._raises = 0
        self._acted = 0
        self._history.append([])
        self._public[self._public_start + self._cards[2]] = 1

    def _ask(self, player: int):
        self._to_move = player
        agent = _AGENTS[player]
        self._acting = (agent,)
        self._update_mask()
        flags = {"player_0": False, "player_1": False}
        return (
            {agent: self._observation(player)},
            {"player_0": 0.0, "player_1": 0.0},
            flags,
            dict(flags),
            {agent: {"action_mask": self._mask.copy()}},
        )

    def _update_mask(self) -> None:
        mover = self._to_move
        self._mask[FOLD] = self._stakes[mover] < self._stakes[1 - mover]
        self._mask[CALL] = 1
        self._mask[RAISE] = self._raises < self.max_raises

    def _observation(self, player: int) -> np.ndarray:
        observation = self._public.copy()
        observation[player] = 1
        observation[self._private_start + self._cards[player]] = 1
        return observation

    @property
    def acting_agents(self) -> tuple[str, ...]:
        """The agents that must act next (the player to move; empty when no hand runs)."""
        return self._acting or ()

    def clone(self) -> LimitPoker:
        """An independent copy of this env, hand in progress included (for planners)."""
        twin = clone_game(self, "_public", "_mask", "_cards", "_stakes")
        twin._history = [list(actions) for actions in self._history]
        return twin

    def sample_hidden_state(self, agent: str, observation: Any, rng: np.random.Generator) -> LimitPoker:
        """A copy of the hand with the cards ``agent`` cannot see dealt anew from ``rng``.

        ``agent``'s own card and the public card (once shown) are read from ``observation``;
        the other player's card and the public card still in the deck are drawn uniformly
        from the cards left. The betting is the public history, kept as it is. See
        :meth:`arena.MultiAgentEnv.sample_hidden_state`.

        Raises:
            UnknownAgentError: ``agent`` is not a player.
            ValueError: ``observation`` is not ``agent``'s observation of this game.

        Example:
            >>> from envs.kuhn_poker import KuhnPoker
            >>> env = KuhnPoker()
            >>> obs, _ = env.reset(options={"cards": ["K", "J"]})
            >>> twin = env.sample_hidden_state("player_0", obs["player_0"], np.random.default_rng(0))
            >>> twin.ranks[twin._cards[0]], twin.ranks[twin._cards[1]] in ("J", "Q")
            ('K', True)
        """
        if agent not in _AGENTS:
            raise self._unknown_agent(agent)
        seat, n = _AGENTS.index(agent), len(self.ranks)
        observation = np.asarray(observation)
        if observation.shape != (self.layout()["size"],) or observation[seat] != 1:
            raise InvalidValueError(
                f"{self}.sample_hidden_state: expected the observation of {agent!r}, a vector "
                f"of {self.layout()['size']} with its seat bit set, got {observation!r}"
            )
        own = int(observation[self._private_start : self._private_start + n].argmax())
        shown = observation[self._public_start : self._public_start + n] if self.rounds > 1 else np.zeros(0)
        deck = [rank for rank in range(n) for _ in range(self.suits)]
        deck.remove(own)
        public = _NO_CARD
        if shown.any():
            public = int(shown.argmax())
            deck.remove(public)
        drawn = [deck[int(index)] for index in rng.permutation(len(deck))]
        twin = self.clone()
        twin._cards = [_NO_CARD] * 3
        twin._cards[seat], twin._cards[1 - seat] = own, drawn[0]
        if self.rounds > 1:
            twin._cards[2] = public if public != _NO_CARD else drawn[1]
        twin._np_random, twin._np_seed = np.random.default_rng(int(rng.integers(2**63))), None
        return twin

    def hand_strength(self, player: int) -> int:
        """A number that orders hands at showdown (higher wins): pairs above high cards."""
        rank, public = self._cards[player], self._cards[2]
        return rank + (len(self.ranks) if rank == public else 0)

    def _showdown(self):
        first, second = self.hand_strength(0), self.hand_strength(1)
        stake = float(self._stakes[0])
        shown = f"player_0 shows {self.ranks[self._cards[0]]}, player_1 shows {self.ranks[self._cards[1]]}"
        if first == second:
            self._result = f"{shown}: split pot"
            return self._end({"player_0": 0.0, "player_1": 0.0})
        winner = 0 if first > second else 1
        self._result = f"{shown}: {_AGENTS[winner]} wins {self._stakes[0]}"
        sign = 1.0 if winner == 0 else -1.0
        return self._end({"player_0": sign * stake, "player_1": -sign * stake})

    # -------------------------------------------------------------- rendering
    def render(self) -> str | None:
        """The public state as text; private cards show only at showdown."""
        if self.render_mode != "ansi":
            return None
        return self.table_text()

    def table_text(self) -> str:
        """The public state as text, whatever the render mode (private cards stay hidden)."""
        if not self._history:
            return "no hand dealt\n"
        lines = [f"round {self._round + 1}/{self.rounds}"]
        if self.rounds > 1:
            public = self.ranks[self._cards[2]] if self._round > 0 else "?"
            lines.append(f"public card: {public}")
        lines.append(f"stakes: player_0 {self._stakes[0]}, player_1 {self._stakes[1]}")
        history = " / ".join("".join(_HISTORY_LETTERS[a] for a in actions) or "-" for actions in self._history)
        lines.append(f"bets: {history}")
        lines.append(self._result or f"to act: {_AGENTS[self._to_move]}")
        return "\n".join(lines) + "\n"

    def action_names(self, agent: str) -> list[str]:
        """Readable names of the actions: ``["fold", "check/call", "bet/raise"]``."""
        return list(ACTION_NAMES)

    def observation_text(self, agent: str, observation: np.ndarray) -> str:
        """What ``agent``'s own observation shows, read from the observation alone.

        Example:
            >>> from envs.kuhn_poker import KuhnPoker
            >>> env = KuhnPoker()
            >>> obs, _ = env.reset(options={"cards": ["K", "J"]})
            >>> env.observation_text("player_0", obs["player_0"])
            'your card: K'
        """
        observation = np.asarray(observation)
        start = self._private_start
        text = f"your card: {self.ranks[int(observation[start : start + len(self.ranks)].argmax())]}"
        if self.rounds > 1:
            public = observation[self._public_start : self._public_start + len(self.ranks)]
            text += f", public card: {self.ranks[int(public.argmax())] if public.any() else '?'}"
        return text
