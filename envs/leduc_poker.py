"""Leduc hold'em: six cards, a private card each, a public card, two limit betting rounds."""

from __future__ import annotations

from envs.poker import LimitPoker

__all__ = ["LeducPoker"]


class LeducPoker(LimitPoker):
    """Leduc hold'em for ``player_0`` and ``player_1`` (Southey et al., 2005).

    The deck holds two jacks, two queens and two kings. Each player antes 1 chip and is
    dealt one private card (seeded by ``reset(seed=...)``). In round 1 bets and raises
    are 2 chips; then one public card is dealt face up, and in round 2 bets and raises
    are 4 chips. Each round allows at most two bets or raises (a bet and a re-raise);
    ``player_0`` acts first in both rounds.

    * **Observation** (only for the player to act): ``Box(0, high, (26,), int8)``:
      ``[0:2]`` one-hot of the observer's seat; ``[2:5]`` one-hot of the observer's own
      card rank (J, Q, K), never the other player's; ``[5:8]`` one-hot of the public
      card rank (all 0 in round 1); ``[8:16]`` and ``[16:24]`` the betting of rounds 1
      and 2, four action slots each of two bits (check/call, bet/raise); ``[24:26]`` the
      chips put in by ``player_0`` and ``player_1`` (1 to 13).
    * **Action**: ``Discrete(3)``: 0 fold, 1 check or call, 2 bet or raise. The mask
      allows fold only when facing a bet, and raise only while the round has had fewer
      than two bets and raises.
    * **Rewards** (zero-sum, in chips, at the end): a folder loses what it put in and
      the other player wins it. At showdown a private card that pairs the public card
      wins; otherwise the higher rank wins; equal ranks split (0 each). The winner gets
      +stake and the loser -stake, where stake is what each put in.
    * **End**: a fold, or round 2 closing (check-check or a call) terminates both players.

    Args:
        render_mode: ``"ansi"`` to render the public state as text (cards show at showdown).

    Example:
        >>> env = LeducPoker()
        >>> obs, infos = env.reset(options={"cards": ["Q", "K", "Q"]})
        >>> for action in (1, 1, 2, 1):  # check, check; then bet 4, call
        ...     agent = next(iter(obs))
        ...     obs, rewards, *_ = env.step({agent: action})
        >>> rewards  # player_0 pairs the public queen and wins player_1's 5 chips
        {'player_0': 5.0, 'player_1': -5.0}
    """

    metadata = {"render_modes": ["ansi"], "name": "leduc_poker"}
    env_name = "leduc_poker"

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__(
            ranks=("J", "Q", "K"), suits=2, ante=1, raise_sizes=(2, 4), max_raises=2, render_mode=render_mode
        )
