"""HumanAgent: parsing typed choices, what a person is shown, forfeits, hot seat, real-time games."""

from __future__ import annotations

import io
from collections import defaultdict
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given
from hypothesis import strategies as st

import envs
from arena import Agent, MultiAgentEnv, play
from arena.agents import HumanAgent
from arena.agents.human import format_observation, parse_choice
from arena.env import has_hidden_information, is_real_time
from arena.errors import AgentError, ArenaError, Forfeit, SpaceMismatchError
from tests.quick import probe, quick_make

RPS = ["rock", "paper", "scissors"]


def human(typed: str, **kwargs: Any) -> HumanAgent:
    kwargs.setdefault("output_stream", io.StringIO())
    return HumanAgent(input_stream=io.StringIO(typed), **kwargs)


def shown(agent: HumanAgent) -> str:
    return agent.output_stream.getvalue()


class FirstLegal(Agent):
    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        return 0 if action_mask is None else int(np.flatnonzero(action_mask)[0])


# ------------------------------------------------------------------ parse_choice
@pytest.mark.parametrize(
    ("text", "legal", "start", "expected"),
    [
        ("1", None, 0, 1),
        (" PAPER ", None, 0, 1),
        ("sc", None, 0, 2),
        ("11", None, 10, 11),
        ("rock", [True, False, True], 5, 5),
    ],
)
def test_parse_choice_reads_numbers_names_and_abbreviations(text, legal, start, expected) -> None:
    assert parse_choice(text, RPS, legal, start) == expected


def test_parse_choice_prefers_the_one_legal_match_of_an_abbreviation() -> None:
    names = ["fold", "check", "call"]
    assert parse_choice("c", names, [True, False, True]) == 2
    with pytest.raises(ValueError, match="^'c' is ambiguous: it could be check, call$"):
        parse_choice("c", names)


@pytest.mark.parametrize(
    ("text", "legal", "start", "reason"),
    [
        ("", None, 0, "type an action's number (0-2) or name; q quits"),
        ("lizard", None, 0, "unknown action 'lizard': type a number (0-2) or a name, e.g. 'rock'; q quits"),
        (
            "lizard",
            [False, True, True],
            0,
            "unknown action 'lizard': type a number (0-2) or a name, e.g. 'paper'; q quits",
        ),
        ("3", None, 0, "there is no action 3: actions are numbered 0 to 2"),
        ("-1", None, 0, "there is no action -1: actions are numbered 0 to 2"),
        ("0", None, 1, "there is no action 0: actions are numbered 1 to 3"),
        ("paper", [True, False, True], 0, "1 (paper) is not legal now; legal: 0 (rock), 2 (scissors)"),
    ],
)
def test_parse_choice_gives_one_line_reasons(text, legal, start, reason) -> None:
    with pytest.raises(ValueError) as caught:
        parse_choice(text, RPS, legal, start)
    assert str(caught.value) == reason


@st.composite
def menus(draw):
    names = draw(
        st.lists(
            st.text("abcxyz _", min_size=1, max_size=6).filter(lambda n: n.strip()),
            min_size=1,
            max_size=8,
            unique_by=lambda n: " ".join(n.split()).lower(),
        )
    )
    names = [" ".join(name.split()) for name in names]
    legal = draw(st.lists(st.booleans(), min_size=len(names), max_size=len(names)))
    return names, legal, draw(st.integers(-3, 3))


@given(menus(), st.data())
def test_parse_choice_round_trips_every_action_by_number_and_by_name(menu, data) -> None:
    names, legal, start = menu
    index = data.draw(st.integers(0, len(names) - 1))
    for typed in (str(start + index), names[index], names[index].upper()):
        if legal[index]:
            assert parse_choice(typed, names, legal, start) == start + index
        else:
            with pytest.raises(ValueError, match="is not legal now"):
                parse_choice(typed, names, legal, start)


# -------------------------------------------------------------- the agent's turn
def test_act_reprompts_until_a_legal_choice_and_lists_again_on_question_mark() -> None:
    agent = human("scissors\n?\nquartz\nr\n", action_names=RPS)
    agent.setup(spaces.Discrete(4), spaces.Discrete(3))
    agent.reset(seed=0)
    assert agent.act(3, np.array([1, 1, 0], dtype=np.int8), reward=2.0) == 0
    assert shown(agent) == (
        "--- you, turn 1 ---\n"
        "reward since your last move: +2 (total +2)\n"
        "your observation:\n  3\n"
        "legal actions: 0 (rock), 1 (paper)\n"
        "you> scissors\n2 (scissors) is not legal now; legal: 0 (rock), 1 (paper)\n"
        "you> ?\nlegal actions: 0 (rock), 1 (paper)\n"
        "you> quartz\nunknown action 'quartz': type a number (0-2) or a name, e.g. 'rock'; q quits\n"
        "you> r\n"
    )


def test_actions_without_names_are_listed_by_number_and_start_counts() -> None:
    agent = human("x\n6\n", label="player_3")
    agent.setup(spaces.Discrete(2), spaces.Discrete(3, start=5))
    assert agent.act(0) == 6
    assert "legal actions: 5, 6, 7\n" in shown(agent)
    assert "unknown action 'x': type a number (5-7) or a name, e.g. '5'; q quits" in shown(agent)


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("q\n", "player_1 forfeits: typed 'q'"),
        ("rock?\n QUIT \n", "player_1 forfeits: typed 'QUIT'"),
        ("", "player_1 forfeits: the input ended"),
        ("nonsense\n", "player_1 forfeits: the input ended"),
    ],
)
def test_quit_or_end_of_input_raises_forfeit(typed: str, message: str) -> None:
    agent = human(typed, action_names=RPS, label="player_1")
    agent.setup(spaces.Discrete(4), spaces.Discrete(3))
    with pytest.raises(Forfeit) as caught:
        agent.act(3)
    assert str(caught.value) == message
    assert isinstance(caught.value, ArenaError)


def test_forfeit_reaches_the_play_loop_as_an_agent_error_of_that_seat() -> None:
    env = envs.make("tic_tac_toe")
    with pytest.raises(AgentError) as caught:
        play(env, {"player_0": FirstLegal(), "player_1": human("q\n")}, seed=0)
    assert caught.value.agent_id == "player_1"
    assert isinstance(caught.value.original, Forfeit)


def test_done_shows_the_final_view_reward_and_total() -> None:
    views = iter(["the table\n", "the showdown\n"])
    agent = human("0\n", renderer=lambda: next(views), label="player_0")
    agent.setup(spaces.Discrete(2), spaces.Discrete(2))
    agent.reset()
    agent.act(0, reward=1.5)
    agent.done(-3.0, {})
    assert shown(agent).endswith(
        "--- game over for player_0 ---\nthe showdown\nplayer_0: reward -3 at the end, total return -1.5\n"
    )


def test_observation_is_shown_through_the_given_text_hook() -> None:
    agent = human(
        "0\n",
        renderer=lambda: "public\n",
        show_observation=True,
        observation_text=lambda obs: f"your card: {'JQK'[obs]}",
    )
    agent.setup(spaces.Discrete(3), spaces.Discrete(2))
    agent.act(2)
    assert "public\nyour observation:\n  your card: K\n" in shown(agent)


def test_format_observation_lays_out_nested_values() -> None:
    observation = {"board": np.array([[0, 1], [2, 0]]), "turn": (3, np.int8(1))}
    assert format_observation(observation) == "board: [[0 1]\n [2 0]]\nturn: [0] 3\n[1] 1"


def test_setup_errors_name_the_agent_and_what_came() -> None:
    with pytest.raises(SpaceMismatchError, match=r"^HumanAgent 'p': expected a Discrete action space, got Box"):
        HumanAgent(label="p").setup(spaces.Discrete(2), spaces.Box(0, 1, (2,)))
    with pytest.raises(SpaceMismatchError, match=r"^HumanAgent 'p': got 2 action names for Discrete\(3\), expected 3$"):
        HumanAgent(label="p", action_names=["a", "b"]).setup(spaces.Discrete(2), spaces.Discrete(3))
    with pytest.raises(ArenaError, match=r"^HumanAgent 'p': act\(\) called before setup\(\)$"):
        HumanAgent(label="p").act(0)
    agent = human("0\n", label="p")
    agent.setup(spaces.Discrete(2), spaces.Discrete(2))
    with pytest.raises(ArenaError, match=r"^HumanAgent 'p': the action mask allows no action$"):
        agent.act(0, np.zeros(2, dtype=np.int8))


# ------------------------------------------------------------------- hot seat
class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_hot_seat_hands_over_and_clears_a_terminal_screen() -> None:
    screen = Terminal()
    agent = HumanAgent(
        input_stream=io.StringIO("\npaper\n"), output_stream=screen, action_names=RPS, label="player_1", hot_seat=True
    )
    agent.setup(spaces.Discrete(4), spaces.Discrete(3))
    assert agent.act(3) == 1
    text = screen.getvalue()
    assert text.startswith("player_1: your turn; press Enter when only you can see the screen \n--- player_1")
    assert "player_1> \n" in text and "paper" not in text.split("player_1> ")[1]  # the choice is not shown
    assert text.endswith("\033[H\033[2J\033[3J")


def test_hot_seat_hand_over_accepts_q() -> None:
    agent = human("q\n", hot_seat=True, label="player_0")
    agent.setup(spaces.Discrete(2), spaces.Discrete(2))
    with pytest.raises(Forfeit, match="^player_0 forfeits: typed 'q'$"):
        agent.act(0)


def test_simultaneous_moves_second_person_sees_nothing_of_the_first_ones_choice() -> None:
    """In rock-paper-scissors player_1 is asked after player_0 chose, and sees the same either way."""
    seen = []
    for first_choice in RPS:
        env = envs.make("rock_paper_scissors", rounds=1, render_mode="ansi")
        screen = io.StringIO()
        people = {
            seat: HumanAgent.at_seat(env, seat, input_stream=io.StringIO(typed), output_stream=screen, hot_seat=True)
            for seat, typed in (("player_0", f"\n{first_choice}\n"), ("player_1", "\nrock\n"))
        }
        play(env, people, seed=0)
        text = screen.getvalue()
        seen.append(text[text.index("player_1: your turn") : text.index("--- game over")])
        assert f"player_0 {first_choice}, player_1 rock" in text[text.index("--- game over") :]
    assert seen[0] == seen[1] == seen[2]


# ------------------------------------------------------------- envs and views
class HiddenCards(MultiAgentEnv):
    """Two players each hold a secret card 0-9 and take turns naming a guess of the other's card.

    The render shows only the public guesses; ``observation_text`` makes the own card readable.
    After two guesses each, the closest total guess wins.
    """

    metadata = {"render_modes": ["ansi"], "name": "hidden_cards"}
    perfect_information = False

    def __init__(self, render_mode: str | None = None) -> None:
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = []
        self.observation_spaces = dict.fromkeys(self.possible_agents, spaces.MultiDiscrete([10, 11, 11]))
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(10))

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.agents = list(self.possible_agents)
        self.cards = [int(card) for card in self.np_random.integers(0, 10, size=2)]
        self.guesses: list[int] = []
        return {"player_0": self._observe(0)}, {"player_0": {"action_mask": np.ones(10, dtype=np.int8)}}

    def _observe(self, player: int) -> np.ndarray:
        last = [10, 10] + self.guesses
        return np.array([self.cards[player], last[-2], last[-1]])

    def step(self, actions):
        mover = len(self.guesses) % 2
        self.check_actions(actions, [self.possible_agents[mover]])
        self.guesses.append(int(actions[self.possible_agents[mover]]))
        if len(self.guesses) == 4:
            self.agents = []
            errors = [
                abs(self.guesses[p] - self.cards[1 - p]) + abs(self.guesses[p + 2] - self.cards[1 - p]) for p in (0, 1)
            ]
            score = float(np.sign(errors[1] - errors[0]))
            return (
                {},
                {"player_0": score, "player_1": -score},
                dict.fromkeys(self.possible_agents, True),
                dict.fromkeys(self.possible_agents, False),
                {a: {} for a in self.possible_agents},
            )
        nxt = self.possible_agents[1 - mover]
        return (
            {nxt: self._observe(1 - mover)},
            {"player_0": 0.0, "player_1": 0.0},
            dict.fromkeys(self.possible_agents, False),
            dict.fromkeys(self.possible_agents, False),
            {nxt: {"action_mask": np.ones(10, dtype=np.int8)}},
        )

    def render(self):
        if self.render_mode != "ansi":
            return None
        text = f"guesses so far: {self.guesses}\n"
        return text + (f"cards: {self.cards}\n" if not self.agents else "")  # revealed at the end only

    def observation_text(self, agent: str, observation: np.ndarray) -> str:
        return f"your card: {observation[0]}"


class SeatRecorder(HumanAgent):
    """A person who always types the first legal action, keeping what it was shown per turn."""

    def __init__(self, env: MultiAgentEnv, seat: str) -> None:
        self.typed = io.StringIO()
        view = HumanAgent.at_seat(env, seat)
        super().__init__(
            renderer=view.renderer,
            action_names=view.action_names,
            show_observation=view.show_observation,
            observation_text=view.observation_text,
            label=seat,
            input_stream=self.typed,
            output_stream=io.StringIO(),
        )
        self.turns: list[tuple[bytes, str]] = []  # (what the seat knows, what it was shown)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        first = 0 if action_mask is None else int(np.flatnonzero(action_mask)[0])
        self.typed.seek(0)
        self.typed.truncate()
        self.typed.write(f"{int(self.action_space.start) + first}\n")
        self.typed.seek(0)
        before = len(self.output_stream.getvalue())
        action = super().act(observation, action_mask, reward)
        known = np.asarray(observation).tobytes() + np.asarray(action_mask).tobytes() + repr(reward).encode()
        text = self.output_stream.getvalue()[before:]
        # A liar's dice challenge shows every die to every player: its outcome (how many showed)
        # is public, though not in the observation vector, so it counts as known.
        known += "".join(line for line in text.splitlines() if line.startswith("last challenge:")).encode()
        self.turns.append((known, text))
        return action


class Watcher(FirstLegal):
    """A machine that keeps its own observations (its private information included)."""

    def __init__(self) -> None:
        self.seen: list[bytes] = []

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        self.seen.append(np.asarray(observation).tobytes())
        return super().act(observation, action_mask, reward)


HIDDEN = [name for name in envs.names() if has_hidden_information(probe(name))]


@pytest.mark.parametrize(
    "make",
    [lambda: HiddenCards(render_mode="ansi")]
    + [lambda name=name: quick_make(name, render_mode="ansi") for name in HIDDEN],
    ids=["hidden_cards", *HIDDEN],
)
def test_what_a_person_is_shown_never_depends_on_other_players_private_information(make) -> None:
    """Whatever the deal, each turn's screen is a function of what that seat itself knows.

    Episodes whose person has had the same observations, masks and rewards so far must have
    shown it the same text, even when the other players' private observations differ.
    """
    shown_after: dict[bytes, set[str]] = defaultdict(set)
    others_after: dict[bytes, set[bytes]] = defaultdict(set)
    for seed in range(40):
        env = make()
        person = SeatRecorder(env, "player_0")
        machines = {seat: Watcher() for seat in env.possible_agents[1:]}
        play(env, {"player_0": person, **machines}, seed=seed)
        history = b""
        for known, text in person.turns:
            history += known + b"|"
            shown_after[history].add(text)
            others_after[history].add(b"".join(b for m in machines.values() for b in m.seen))
    assert all(len(texts) == 1 for texts in shown_after.values())
    # Not vacuous: some identical histories for the person met different private information of the others.
    assert any(len(others_after[history]) > 1 for history in shown_after)


def test_at_seat_hidden_information_env_shows_public_render_and_own_card() -> None:
    env = HiddenCards(render_mode="ansi")
    person = SeatRecorder(env, "player_0")
    play(env, {"player_0": person, "player_1": FirstLegal()}, seed=3)
    first_turn = person.turns[0][1]
    assert "guesses so far: []\nyour observation:\n  your card: " in first_turn
    assert "cards:" not in first_turn
    assert "cards: " in person.output_stream.getvalue().split("--- game over")[1]  # revealed at the end


TEXT_ENVS = [name for name in envs.names() if "ansi" in probe(name).metadata.get("render_modes", [])]


@pytest.mark.parametrize("name", TEXT_ENVS)
def test_at_seat_takes_names_view_and_observation_policy_from_each_bundled_env(name: str) -> None:
    env = quick_make(name, render_mode="ansi")
    seat = env.possible_agents[0]
    agent = HumanAgent.at_seat(env, seat)
    if isinstance(env.action_space(seat), spaces.Discrete):
        assert len(agent.action_names) == env.action_space(seat).n
    assert agent.label == seat and agent.renderer is not None
    assert agent.show_observation == has_hidden_information(env)
    plain = HumanAgent.at_seat(quick_make(name), seat)  # no text render: the observation is all there is
    assert plain.renderer is None and plain.show_observation


def test_at_seat_refuses_seats_that_cannot_be_typed() -> None:
    from tests.arena.test_cli_play import SteeringEnv

    with pytest.raises(SpaceMismatchError, match=r"^HumanAgent: <SteeringEnv> seat 'driver' acts in Box"):
        HumanAgent.at_seat(SteeringEnv(), "driver")


def _env_with_metadata(metadata: dict) -> MultiAgentEnv:
    env = MultiAgentEnv()
    env.metadata = metadata
    return env


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        ({"render_modes": ["ansi"]}, False),
        ({"render_modes": ["rgb_array"], "real_time": True}, True),
        ({"render_modes": ["rgb_array"], "render_fps": 30}, True),  # animated: a real-time game
        ({"render_modes": ["human"], "render_fps": 1}, False),  # a board game shown a frame a second
        ({"render_modes": ["rgb_array"], "render_fps": 30, "real_time": False}, False),  # the env's word wins
    ],
)
def test_is_real_time(metadata: dict, expected: bool) -> None:
    assert is_real_time(_env_with_metadata(metadata)) is expected


@pytest.mark.parametrize(
    "name", ["tic_tac_toe", "rock_paper_scissors", "connect_four", "kuhn_poker", "leduc_poker", "liars_dice"]
)
def test_bundled_turn_based_games_are_not_real_time(name: str) -> None:
    assert not is_real_time(quick_make(name))
