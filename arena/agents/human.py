"""A person at a text terminal, as an arena agent.

A person is just another agent: the play loop calls :meth:`HumanAgent.act` when the env
asks the seat to move, and the agent shows the game, lists the legal actions and reads a
choice from a text stream.

What the person sees, and why it never holds another player's private information:

* the env's text render (``render()`` in ``"ansi"`` mode), which by the env contract shows
  the public state only while the game runs (the bundled card and dice games keep cards
  and dice out of it until the showdown);
* the agent's own observation when the env has hidden information
  (``perfect_information = False``) or no text render at all; an env may make it readable
  with an ``observation_text(agent, observation)`` method, otherwise it is printed as is.

Envs may also name their actions with ``action_names(agent)`` (one name per action);
without it the actions are listed by number.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.env import has_hidden_information
from arena.errors import ArenaError, Forfeit, InvalidValueError, SpaceMismatchError

__all__ = ["HumanAgent", "parse_choice", "format_observation", "QUIT_WORDS"]

QUIT_WORDS = ("q", "quit")
_HELP_WORDS = ("?", "help")
_CLEAR_SCREEN = "\033[H\033[2J\033[3J"  # home, clear the screen and the scroll-back


def _own_text(env: Any, agent_id: str, observation: Any) -> str:
    """The env's text for the observation, or the observation as compact text when it has none."""
    text = env.observation_text(agent_id, observation)
    return format_observation(observation) if text is None else text


def format_observation(observation: Any) -> str:
    """An observation as compact text: arrays on one line each, dicts and tuples by entry.

    Example:
        >>> import numpy as np
        >>> format_observation({"card": 2, "bets": np.array([0, 1])})
        'card: 2\\nbets: [0 1]'
    """
    if isinstance(observation, dict):
        return "\n".join(f"{key}: {format_observation(value)}" for key, value in observation.items())
    if isinstance(observation, tuple):
        return "\n".join(f"[{i}] {format_observation(value)}" for i, value in enumerate(observation))
    if isinstance(observation, np.ndarray):
        return np.array2string(observation, max_line_width=100, threshold=400)
    return str(observation)


def parse_choice(text: str, names: Sequence[str], legal: Sequence[bool] | None = None, start: int = 0) -> int:
    """The action that the typed ``text`` means.

    ``text`` is an action's number (always read as a number), an action's name
    (case-insensitive), or the start of exactly one name, or of exactly one legal name
    (``"r"`` for ``"rock"``).

    Args:
        text: what the person typed.
        names: one name per action, in action order.
        legal: one flag per action (``None``: every action is legal).
        start: the number of the first action (``Discrete.start``).

    Returns:
        the action (``start`` + its index).

    Raises:
        ValueError: with a one-line reason: empty or unknown text, a number out of range,
            an ambiguous abbreviation, or an action that is not legal now.

    Example:
        >>> parse_choice("Paper", ["rock", "paper", "scissors"])
        1
        >>> parse_choice("s", ["rock", "paper", "scissors"])
        2
        >>> parse_choice("0", ["fold", "call"], legal=[False, True])
        Traceback (most recent call last):
        ...
        arena.errors.InvalidValueError: 0 (fold) is not legal now; legal: 1 (call)
    """
    word = " ".join(text.split())
    last = start + len(names) - 1
    if not word:
        raise InvalidValueError(f"type an action's number ({start}-{last}) or name; q quits")
    allowed = [True] * len(names) if legal is None else [bool(flag) for flag in legal]
    lowered = [name.lower() for name in names]
    key = word.lower()
    if _is_integer(word):
        index = int(word) - start
        if not 0 <= index < len(names):
            raise InvalidValueError(f"there is no action {word}: actions are numbered {start} to {last}")
    elif key in lowered:
        index = lowered.index(key)
    else:
        matches = [i for i, name in enumerate(lowered) if name.startswith(key)]
        legal_matches = [i for i in matches if allowed[i]]
        if len(legal_matches) == 1 or len(matches) == 1:
            index = legal_matches[0] if len(legal_matches) == 1 else matches[0]
        elif matches:
            candidates = legal_matches or matches
            raise InvalidValueError(f"{word!r} is ambiguous: it could be {', '.join(names[i] for i in candidates)}")
        else:
            raise InvalidValueError(
                f"unknown action {word!r}: type a number ({start}-{last}) or a name, e.g. "
                f"{names[allowed.index(True) if True in allowed else 0]!r}; q quits"
            )
    if not allowed[index]:
        raise InvalidValueError(
            f"{_label(start + index, names[index])} is not legal now; legal: "
            + ", ".join(_label(start + i, names[i]) for i, ok in enumerate(allowed) if ok)
        )
    return start + index


def _is_integer(word: str) -> bool:
    return word.lstrip("+-").isdigit()


def _label(action: int, name: str) -> str:
    return str(action) if name == str(action) else f"{action} ({name})"


class HumanAgent(Agent):
    """A person choosing moves at a text terminal.

    Each turn it prints the view (``renderer()``), the person's own observation when
    ``show_observation`` is set, the reward since the last move, and the legal actions by
    number and name; then it reads lines until one names a legal action (an action's
    number, its name, or an unambiguous start of a name), re-prompting with a one-line
    reason otherwise. ``?`` lists the actions again. ``q``, ``quit`` or the end of input
    raises :class:`~arena.errors.Forfeit`, which the play loop passes on inside an
    :class:`~arena.errors.AgentError` and ``arena play`` records as a loss by forfeit.
    When the game ends it shows the final view, the last reward and its total return.

    Use :meth:`at_seat` to build one that shows an env's render and action names.

    Args:
        renderer: returns the text view of the game (``None`` when there is none).
        action_names: one name per action; numbers when not given.
        show_observation: print the agent's own observation every turn.
        observation_text: turns the own observation into text (default
            :func:`format_observation`).
        label: how the person is addressed (the seat id in ``arena play``).
        input_stream: where choices are read (default ``sys.stdin`` at the time of reading).
        output_stream: where the game is shown (default ``sys.stdout``).
        hot_seat: several people share this terminal: before each turn the agent asks for
            Enter once the others look away, reads the choice without echo when the input
            is a terminal, and clears the screen after it.

    Example:
        >>> import io
        >>> from gymnasium import spaces
        >>> agent = HumanAgent(action_names=["rock", "paper", "scissors"],
        ...                    input_stream=io.StringIO("lizard\\np\\n"), output_stream=io.StringIO())
        >>> agent.setup(spaces.Discrete(4), spaces.Discrete(3))
        >>> agent.act(3)
        1
        >>> print(agent.output_stream.getvalue().rstrip())
        --- you, turn 1 ---
        your observation:
          3
        legal actions: 0 (rock), 1 (paper), 2 (scissors)
        you> lizard
        unknown action 'lizard': type a number (0-2) or a name, e.g. 'rock'; q quits
        you> p
    """

    def __init__(
        self,
        *,
        renderer: Callable[[], str | None] | None = None,
        action_names: Sequence[str] | None = None,
        show_observation: bool | None = None,
        observation_text: Callable[[Any], str] | None = None,
        label: str = "you",
        input_stream: TextIO | None = None,
        output_stream: TextIO | None = None,
        hot_seat: bool = False,
    ) -> None:
        self.renderer = renderer
        self.action_names = None if action_names is None else [str(name) for name in action_names]
        self.show_observation = renderer is None if show_observation is None else bool(show_observation)
        self.observation_text = observation_text or format_observation
        self.label = str(label)
        self.input_stream = input_stream
        self.output_stream = output_stream
        self.hot_seat = bool(hot_seat)
        self._names: list[str] = []
        self._start = 0
        self._turn = 0
        self._return = 0.0

    @classmethod
    def at_seat(cls, env: Any, agent_id: str, **kwargs: Any) -> HumanAgent:
        """A human for seat ``agent_id`` of ``env``, showing its render and action names.

        The view is ``env.render()`` when the env renders as text (build it with
        ``render_mode="ansi"``); the own observation is shown as well when the env has
        hidden information or no text render, through the env's
        ``observation_text(agent, observation)`` when it has one.

        Raises:
            SpaceMismatchError: the seat's action space is not Discrete (real-time and
                continuous-control games cannot be typed move by move).

        Example:
            >>> import envs
            >>> human = HumanAgent.at_seat(envs.make("tic_tac_toe", render_mode="ansi"), "player_0")
            >>> human.action_names[:2], human.show_observation
            (['r0c0', 'r0c1'], False)
        """
        action_space = env.action_space(agent_id)
        if not isinstance(action_space, spaces.Discrete):
            raise SpaceMismatchError(
                f"HumanAgent: {env} seat {agent_id!r} acts in {action_space}; "
                "a person at the terminal can only choose among Discrete actions"
            )
        text_render = env.render_mode == "ansi"
        kwargs.setdefault("label", agent_id)
        kwargs.setdefault("renderer", env.render if text_render else None)
        kwargs.setdefault("action_names", env.action_names(agent_id))
        kwargs.setdefault("show_observation", has_hidden_information(env) or not text_render)
        kwargs.setdefault("observation_text", lambda observation: _own_text(env, agent_id, observation))
        return cls(**kwargs)

    # ------------------------------------------------------------------ agent
    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        """Check that the actions can be listed, and fix their names.

        Raises:
            SpaceMismatchError: the action space is not Discrete, or ``action_names``
                does not hold one name per action.
        """
        if not isinstance(action_space, spaces.Discrete):
            raise SpaceMismatchError(f"HumanAgent {self.label!r}: expected a Discrete action space, got {action_space}")
        super().setup(observation_space, action_space)
        self._start, n = int(action_space.start), int(action_space.n)
        if self.action_names is None:
            self._names = [str(self._start + i) for i in range(n)]
        elif len(self.action_names) != n:
            raise SpaceMismatchError(
                f"HumanAgent {self.label!r}: got {len(self.action_names)} action names for {action_space}, expected {n}"
            )
        else:
            self._names = list(self.action_names)

    def reset(self, *, seed: int | None = None) -> None:
        self._turn = 0
        self._return = 0.0

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        """Show the game and return the action the person chooses.

        Raises:
            Forfeit: the person typed ``q``/``quit`` or the input ended.
            ArenaError: the mask allows no action (the env is broken).
        """
        if not self._names:
            raise ArenaError(f"HumanAgent {self.label!r}: act() called before setup()")
        self._turn += 1
        self._return += float(reward)
        legal = None if action_mask is None else [bool(flag) for flag in np.asarray(action_mask).ravel()]
        if legal is not None and not any(legal):
            raise ArenaError(f"HumanAgent {self.label!r}: the action mask allows no action")
        if self.hot_seat:
            self._read_or_forfeit(f"{self.label}: your turn; press Enter when only you can see the screen ")
        self._show(f"--- {self.label}, turn {self._turn} ---")
        if reward:
            self._show(f"reward since your last move: {reward:+g} (total {self._return:+g})")
        self._show_view()
        if self.show_observation:
            self._show(f"your observation:\n{textwrap.indent(self.observation_text(observation), '  ')}")
        listing = self._listing(legal)
        self._show(listing)
        while True:
            line = self._read_or_forfeit(f"{self.label}> ", hidden=self.hot_seat)
            word = line.strip()
            if word.lower() in _HELP_WORDS:
                self._show(listing)
                continue
            try:
                action = parse_choice(word, self._names, legal, self._start)
            except ValueError as err:
                self._show(str(err))
                continue
            if self.hot_seat and _isatty(self._out):  # the next person must not see this screen
                print(_CLEAR_SCREEN, end="", file=self._out, flush=True)
            return action

    def done(self, reward: float, info: dict[str, Any]) -> None:
        """Show the final view, the last reward and the total return."""
        self._return += float(reward)
        self._show(f"--- game over for {self.label} ---")
        self._show_view()
        self._show(f"{self.label}: reward {reward:+g} at the end, total return {self._return:+g}")

    def __str__(self) -> str:
        return f"HumanAgent({self.label})"

    # --------------------------------------------------------------- terminal
    @property
    def _out(self) -> TextIO:
        return self.output_stream if self.output_stream is not None else sys.stdout

    @property
    def _in(self) -> TextIO:
        return self.input_stream if self.input_stream is not None else sys.stdin

    def _show(self, text: str) -> None:
        print(text, file=self._out, flush=True)

    def _show_view(self) -> None:
        view = self.renderer() if self.renderer is not None else None
        if isinstance(view, str) and view.strip():
            self._show(view.rstrip("\n"))

    def _listing(self, legal: list[bool] | None) -> str:
        entries = [_label(self._start + i, name) for i, name in enumerate(self._names) if legal is None or legal[i]]
        lines = ["legal actions:"]
        for position, entry in enumerate(entries):
            entry += "," if position < len(entries) - 1 else ""
            if len(lines[-1]) + 1 + len(entry) > 100:  # wrap between entries, never inside one
                lines.append(" ")
            lines[-1] += " " + entry
        return "\n".join(lines)

    def _read_or_forfeit(self, prompt: str, hidden: bool = False) -> str:
        """One line of input without its newline; ``q`` or the end of input forfeits.

        A line read from a pipe or file is written after the prompt, so that the output
        reads like a terminal session; a ``hidden`` line (hot seat) never is.
        """
        typed_at_terminal = _isatty(self._in)
        with _echo_off(self._in) if hidden and typed_at_terminal else contextlib.nullcontext():
            self._out.write(prompt)  # after the echo is off, so that nothing typed early shows
            self._out.flush()
            line = self._in.readline()
        if hidden or not typed_at_terminal:
            self._show("" if hidden or not line else line.rstrip("\r\n"))
        if not line:
            raise Forfeit(self.label, "the input ended")
        if line.strip().lower() in QUIT_WORDS:
            raise Forfeit(self.label, f"typed {line.strip()!r}")
        return line.rstrip("\r\n")


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def _echo_off(stream: TextIO) -> Iterator[None]:
    """Keep what is typed at the terminal ``stream`` off the screen (line editing stays on)."""
    import termios  # POSIX only; imported here so that other systems can still play without hot seat

    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    quiet = list(saved)
    quiet[3] &= ~termios.ECHO  # the local-mode flags
    termios.tcsetattr(fd, termios.TCSADRAIN, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
