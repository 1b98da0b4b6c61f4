"""Kuhn poker: three cards, one private card each, one betting round with a single bet."""

from __future__ import annotations

from envs.poker import LimitPoker

__all__ = ["KuhnPoker"]


class KuhnPoker(LimitPoker):
    """Kuhn poker for ``player_0`` and ``player_1`` (Kuhn, 1950).

    The deck holds a jack, a queen and a king. Each player antes 1 chip and is dealt one
    card at random (seeded by ``reset(seed=...)``); the third card stays hidden. One
    betting round follows, ``player_0`` first, with at most one bet of 1 chip.

    * **Observation** (only for the player to act): ``Box(0, high, (13,), int8)``:
      ``[0:2]`` one-hot of the observer's seat; ``[2:5]`` one-hot of the observer's own
      card (J, Q, K), never the other player's; ``[5:11]`` the betting so far, three
      action slots of two bits (check/call, bet); ``[11:13]`` the chips put in by
      ``player_0`` and ``player_1`` (1 or 2).
    * **Action**: ``Discrete(3)``: 0 fold, 1 check or call, 2 bet. The mask allows fold
      only when facing a bet, and bet only when nobody has bet yet.
    * **Rewards** (zero-sum, at the end): a fold gives the other player +1 and the
      folder -1 (its ante); at showdown the higher card wins +1 after check-check and +2
      after a called bet, the lower card the negative.
    * **End**: a fold, a call, or two checks terminate both players.

    Args:
        render_mode: ``"ansi"`` to render the public state as text (cards show at showdown).

    Example:
        >>> env = KuhnPoker()
        >>> obs, infos = env.reset(options={"cards": ["K", "J"]})
        >>> obs["player_0"][2:5].tolist(), infos["player_0"]["action_mask"].tolist()
        ([0, 0, 1], [0, 1, 1])
        >>> _ = env.step({"player_0": 2})  # bet
        >>> obs, rewards, *_ = env.step({"player_1": 0})  # fold
        >>> rewards
        {'player_0': 1.0, 'player_1': -1.0}
    """

    metadata = {"render_modes": ["ansi"], "name": "kuhn_poker"}
    env_name = "kuhn_poker"

    def __init__(self, render_mode: str | None = None) -> None:
        super().__init__(
            ranks=("J", "Q", "K"), suits=1, ante=1, raise_sizes=(1,), max_raises=1, render_mode=render_mode
        )
