"""The env of a tournament, a replay or a served game, described by name so that any worker can build it.

An :class:`EnvSpec` is a factory (a registered env name such as ``"tic_tac_toe"``, or
``"package.module:callable"``) and JSON-serialisable keyword arguments; specs, not env objects,
travel to workers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.errors import InvalidTypeError
from arena.registry import make_env
from arena.specs.factories import callable_spec, plain_json_kwargs

__all__ = ["EnvSpec"]


@dataclass(frozen=True)
class EnvSpec:
    """The env of a tournament: a registered env name or ``"package.module:callable"`` with kwargs.

    Example:
        >>> EnvSpec("tic_tac_toe").build().possible_agents
        ['player_0', 'player_1']
    """

    factory: str
    kwargs: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.factory, str) or not self.factory:
            raise InvalidTypeError(f"EnvSpec: factory must be a non-empty string, got {self.factory!r}")
        object.__setattr__(self, "kwargs", plain_json_kwargs(self.kwargs, f"env {self.factory!r}"))

    @classmethod
    def coerce(cls, env: Any, kwargs: Mapping[str, Any] | None = None) -> EnvSpec:
        """An :class:`EnvSpec` from a spec, a name or an importable env factory (class or function)."""
        if isinstance(env, EnvSpec):
            return env if not kwargs else cls(env.factory, {**env.kwargs, **kwargs})
        if isinstance(env, str):
            return cls(env, dict(kwargs or {}))
        if callable(env) and not hasattr(env, "possible_agents"):
            return cls(callable_spec(env, "tournament env"), dict(kwargs or {}))
        raise InvalidTypeError(
            f"tournament: the env must be a name, 'package.module:callable' or an importable factory "
            f"(so that workers can build it), got {type(env).__name__}"
        )

    def build(self) -> Any:
        """Build the env."""
        return make_env(self.factory, **self.kwargs)
