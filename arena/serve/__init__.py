"""``arena serve``: people play bundled games in the browser against agents (see :mod:`arena.serve.server`).

It builds on the replay viewer's drawing code (:mod:`arena.replay.html`); nothing in
:mod:`arena.replay` depends on this package.
"""

from __future__ import annotations

from arena.serve.human import BrowserHuman, Channel, idle_action, key_bindings
from arena.serve.server import GameRecord, GameServer

__all__ = ["BrowserHuman", "Channel", "GameRecord", "GameServer", "idle_action", "key_bindings"]
