"""An arena interface plugin: interfaces that arena finds through the ``arena.interfaces`` entry points."""

from arena_plugin_template.turn_count import AppendTurnCount

__all__ = ["AppendTurnCount"]
