"""``arena serve``: people play bundled games in the browser against agents (see :mod:`arena.serve.server`).

It builds on the replay viewer's drawing code (:mod:`arena.replay.html`); nothing in
:mod:`arena.replay` depends on this package. :mod:`arena.serve.doors` decides what gets in (the
server's own host and origin, the token of the printed address, small well-formed messages);
:mod:`arena.serve.worker` plays the games in a process watched as tournaments watch theirs.
"""

from __future__ import annotations

from arena.serve.human import BrowserHuman, Channel, idle_action, key_bindings
from arena.serve.server import GameRecord, GameServer

__all__ = ["BrowserHuman", "Channel", "GameRecord", "GameServer", "idle_action", "key_bindings"]
