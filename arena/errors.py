"""Exceptions raised by arena.

Every error that bad input can cause is an :class:`ArenaError`, so callers can catch
them all at once; each also derives from the builtin a Python user would expect
(``ValueError`` for a bad value, ``KeyError`` for an unknown agent id), so generic
handlers keep working. Messages name the env, agent or interface involved, what was
expected, and what came.
"""

from __future__ import annotations

__all__ = [
    "ArenaError",
    "InvalidValueError",
    "InvalidTypeError",
    "ResetNeeded",
    "UnknownAgentError",
    "UnknownNameError",
    "WrongAgentsError",
    "InvalidActionError",
    "IllegalActionError",
    "SpaceMismatchError",
    "MaskTranslationError",
    "AgentError",
    "ContractViolation",
    "PluginError",
    "UntrustedCodeError",
    "AgentFolderError",
    "MissingDependencyError",
    "NotParallelizableError",
    "Forfeit",
    "InterfaceError",
    "InterfaceSpecError",
    "UnknownEnvError",
    "EngineError",
    "WorkerError",
    "TournamentError",
    "TournamentMismatchError",
    "EntrantBuildError",
    "ResultsFileError",
    "ReportError",
    "ReplayError",
    "ReplayFormatError",
    "GameNotFoundError",
    "MoveTimeout",
    "ModelNotLoaded",
    "MessageError",
]


class ArenaError(Exception):
    """Base class of every error arena raises for bad input or a broken contract."""


class InvalidValueError(ArenaError, ValueError):
    """A value given to arena (an argument, an option, a config field, a flag) outside what it accepts.

    The message names what was expected and what came. The ``arena`` command shows it as one line
    (exit status 2); a plain ``ValueError`` from inside arena is a bug and keeps its traceback.

    Example:
        >>> issubclass(InvalidValueError, ValueError)
        True
    """


class InvalidTypeError(ArenaError, TypeError):
    """A value given to arena of a type it does not take (or an option a factory does not take).

    Example:
        >>> issubclass(InvalidTypeError, TypeError)
        True
    """


class ResetNeeded(ArenaError, RuntimeError):
    """``step`` was called before ``reset`` or after the episode ended."""


class UnknownAgentError(ArenaError, KeyError):
    """An agent id that the environment does not know."""

    def __str__(self) -> str:  # KeyError would repr() the message and add quotes
        return str(self.args[0]) if self.args else ""


class UnknownNameError(ArenaError, KeyError):
    """A registry (envs, agents, interfaces) was asked for a name it does not hold."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class WrongAgentsError(ArenaError, ValueError):
    """``step`` received actions for a set of agents other than the ones asked to act."""


class InvalidActionError(ArenaError, ValueError):
    """An action that does not lie in the agent's action space."""


class IllegalActionError(InvalidActionError):
    """An action inside the action space that the current action mask forbids."""


class SpaceMismatchError(ArenaError, ValueError):
    """A space that an interface, agent or wrapper cannot work with."""


class MaskTranslationError(ArenaError):
    """An interface changed the action space but cannot translate action masks."""


class InterfaceError(ArenaError):
    """An interface raised while a wrapper ran it on an observation, reward, mask or action.

    Attributes:
        interface: the interface level that raised (``None`` when it cannot be told).
        original: the exception it raised.
    """

    def __init__(self, message: str, interface: object = None, original: BaseException | None = None) -> None:
        self.interface = interface
        self.original = original
        super().__init__(message)


class AgentError(ArenaError):
    """An agent raised while the play loop asked it to act.

    Attributes:
        agent_id: the env agent id (or team key) whose agent failed.
        original: the exception the agent raised.
    """

    def __init__(self, agent_id: object, original: BaseException) -> None:
        self.agent_id = agent_id
        self.original = original
        super().__init__(f"agent for {agent_id!r} raised {type(original).__name__}: {original}")


class ContractViolation(ArenaError, AssertionError):
    """A checker in :mod:`arena.testing` found a broken contract."""


class PluginError(ArenaError):
    """A plugin failed to load or broke the interface contract."""


class Forfeit(ArenaError):
    """A player gave the game up (a person typed ``q`` or closed the input) and loses it.

    Raised by :class:`arena.agents.HumanAgent` from ``act``; the play loop passes it on
    inside an :class:`AgentError`, and ``arena play`` records a loss by forfeit for that seat.

    Attributes:
        entrant: who forfeits (a seat id, or an entrant's name).
        reason: why, in a few words.
    """

    def __init__(self, entrant: str, reason: str) -> None:
        self.entrant = entrant
        self.reason = reason
        super().__init__(f"{entrant} forfeits: {reason}")


class UntrustedCodeError(ArenaError, PermissionError):
    """A ``module:callable`` named in data (a results file, an agent folder, a page) that the user
    did not choose: arena imports code only from installed entry points or from factories given
    on the command line or in Python (``--trust`` lets a reader import what a file names)."""


class AgentFolderError(ArenaError, ValueError):
    """A trained-agent folder that cannot be loaded: the message names the folder and what is wrong."""


class MissingDependencyError(ArenaError, ImportError):
    """An optional library is not installed; the message names the extra that installs it."""


class NotParallelizableError(ArenaError, ValueError):
    """A parallel (all-agents-at-once) view of an env in which not every live agent acts."""


class InterfaceSpecError(ArenaError, ValueError):
    """An interface spec that does not parse, or names an unknown interface or option."""


class UnknownEnvError(UnknownNameError):
    """``envs.make`` was given a name that is not registered."""


class EngineError(ArenaError, RuntimeError):
    """A game engine (ViZDoom) did not start, connect or answer in time."""


class WorkerError(ArenaError, RuntimeError):
    """A game of :class:`arena.worker_batch.WorkerBatch` raised, or one of its worker processes died.

    The message names the game and holds the worker's traceback; ``game`` is that game's index
    (``None`` when no one game is to blame), ``worker_traceback`` the traceback's text, and
    ``__cause__`` the env's own exception where it could travel back from the worker.
    """

    def __init__(self, message: str, *, game: int | None = None, worker_traceback: str = "") -> None:
        super().__init__(message)
        self.game, self.worker_traceback = game, worker_traceback


class TournamentError(ArenaError, RuntimeError):
    """A tournament could not go on (a worker died, the env failed to build)."""


class EntrantBuildError(TournamentError):
    """Entrants of a tournament could not be built (an unknown name, a wrong option): nothing was played.

    Attributes:
        reasons: entrant name -> why it could not be built.
    """

    def __init__(self, message: str, reasons: dict[str, str]) -> None:
        super().__init__(message)
        self.reasons = reasons


class TournamentMismatchError(ArenaError, ValueError):
    """The results file holds a tournament with other rules than the one asked to resume."""


class ResultsFileError(ArenaError, ValueError):
    """The ``--db`` file cannot hold arena results (not SQLite, another program's, read-only, newer)."""


class ReportError(ArenaError, ValueError):
    """Results files that cannot be reported on together (missing, or of different envs)."""


class ReplayError(ArenaError, ValueError):
    """A stored game cannot be read or replayed."""


class ReplayFormatError(ArenaError, ValueError):
    """Stored actions that cannot be read back (damaged, or written by an unknown format)."""


class GameNotFoundError(ReplayError, LookupError):
    """No stored game has the asked id."""


class MoveTimeout(BaseException):
    """Raised inside a move that ran past the time limit (the tournament's move guard).

    A ``BaseException`` (like ``KeyboardInterrupt``), so that an agent's own
    ``except Exception`` cannot swallow it; not an :class:`ArenaError`, as it is no one's bad
    input: the guard turns it into a forfeit.
    """


class ModelNotLoaded(Exception):
    """Raised by the stand-in for a trained model a replay did not load, once its interface stack
    has made the model's observation: the replay shows that view and no choice of the model's.

    Not an :class:`ArenaError`: it is no one's bad input, and the replay catches it.
    """


class MessageError(ArenaError, ValueError):
    """A page's message that ``arena serve`` does not accept; the text is sent back to the page."""
