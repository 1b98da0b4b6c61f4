"""Pommerman: every recorded reference step replayed, board distribution, modes, errors, rendering."""

from __future__ import annotations

import hashlib
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena import RandomAgent, play
from arena.errors import WrongAgentsError
from arena.testing import check_env
from envs.pommerman import board as boards
from envs.pommerman import core
from envs.pommerman.core import AGENT_0, PASSAGE, RIGID, WOOD
from envs.pommerman.replay import replay_episode


def test_every_recorded_reference_step_matches_state_rewards_done_and_observations(trajectories):
    meta, episodes = trajectories
    made = {mode: envs.make("pommerman", mode=mode) for mode in ("ffa", "team", "radio")}
    steps, failed = Counter(), Counter()
    events, failed_events = Counter(), Counter()
    failures = []
    for episode in episodes:
        bad = replay_episode(made[episode["mode"]], episode, events, failed_events)
        steps[episode["mode"]] += len(episode["steps"])
        failed[episode["mode"]] += len(bad)
        failures += [(episode["id"], t, what) for t, what in bad[:3]]
    assert sum(steps.values()) == meta["steps"]  # every recorded step was replayed
    print("\nPommerman replay agreement (steps matching / steps):")
    for mode in ("ffa", "team", "radio"):
        print(f"  {mode:6s} {steps[mode] - failed[mode]}/{steps[mode]}")
    print("per rule event (steps with the event matching / steps with it):")
    for event in sorted(events):
        print(f"  {event:28s} {events[event] - failed_events[event]}/{events[event]}")
    assert not failures, failures[:10]
    # the events the file was recorded to cover all occur in the replayed steps
    assert {
        "agent_death",
        "kick_success",
        "bomb_laid",
        "wood_destroyed",
        "hidden_item_lost_to_flames",
        "pickup_incr_range_at_cap",
        "overlapping_flames",
        "end_step_limit_tie",
        "end_all_dead_tie",
        "radio_words_sent",
        "walk_into_flames",
        "moving_bomb_stopped",
    } <= set(events)


def test_reference_reset_boards_share_the_generated_invariants(trajectories):
    _, episodes = trajectories
    for episode in episodes:
        state = episode["initial_state"]
        board = np.array(state["board"], dtype=np.uint8)
        items = np.zeros_like(board)
        for (r, c), code in state["items"]:
            items[r, c] = code
        _check_invariants(board, items)


def _check_invariants(board: np.ndarray, items: np.ndarray) -> None:
    walls = np.isin(board, (RIGID, WOOD))
    assert (walls == walls.T).all() and (board[walls] == board.T[walls]).all()
    assert not walls.diagonal().any()
    assert (board == RIGID).sum() == 36 and (board == WOOD).sum() == 36
    for i, (r, c) in enumerate(boards.START_POSITIONS):
        assert board[r, c] == AGENT_0 + i
    for r, c in boards.FIXED_WOOD:
        assert board[r, c] == WOOD
    for r, c in [
        (1, 2),
        (1, 3),
        (2, 1),
        (3, 1),
        (9, 8),
        (9, 7),
        (8, 9),
        (7, 9),
        (1, 8),
        (1, 7),
        (2, 9),
        (3, 9),
        (8, 1),
        (7, 1),
        (9, 2),
        (9, 3),
    ]:
        assert board[r, c] == PASSAGE
    assert boards.unreachable_passages(board, 9, 9) <= 4
    assert (items > 0).sum() == 20 and (board[items > 0] == WOOD).all()
    assert set(np.unique(items[items > 0]).tolist()) <= {6, 7, 8}


def test_generated_boards_follow_the_reference_distribution():
    rng = np.zeros(1, np.uint64)
    boards.seed_stream(rng, 0)
    n = 400
    rigid = np.zeros((11, 11))
    kinds = Counter()
    for _ in range(n):
        board, items = boards.make_board(rng)
        _check_invariants(board, items)
        rigid += board == RIGID
        kinds.update(items[items > 0].tolist())
    # every free pair is rigid with probability 18/40 (a few redrawn boards aside)
    free = boards._PAIRS
    p = rigid[free[:, 0], free[:, 1]] / n
    assert abs(p.mean() - 18 / len(free)) < 0.02
    assert np.all(np.abs(p - 18 / len(free)) < 5 * np.sqrt(0.25 / n))
    assert all(abs(kinds[k] / (20 * n) - 1 / 3) < 0.03 for k in (6, 7, 8))


@settings(max_examples=60, deadline=None)
@given(
    cells=st.lists(st.sampled_from([PASSAGE, PASSAGE, RIGID, RIGID, WOOD, AGENT_0]), min_size=121, max_size=121),
    start=st.tuples(st.integers(0, 10), st.integers(0, 10)),
)
def test_unreachable_passages_agree_with_scipy_connected_components(cells, start):
    # the flood fill that decides redraws, against scipy's labelling of the non-rigid cells (4-neighbours)
    ndimage = pytest.importorskip("scipy.ndimage")
    board = np.array(cells, dtype=np.uint8).reshape(11, 11)
    open_cells = board != RIGID
    open_cells[start] = True  # a search starts from its cell whatever is there
    labels, _ = ndimage.label(open_cells)
    expected = int(((board == PASSAGE) & (labels != labels[start])).sum())
    assert boards.unreachable_passages(board, *start) == expected


@pytest.mark.parametrize(
    ("start", "beyond", "reached"),
    [
        ((0, 10), (1, 0), False),  # a row's last cell and the next row's first: not neighbours
        ((1, 0), (0, 10), False),
        ((5, 8), (5, 9), True),  # cells 63 and 64: across the two words of the flood fill
        ((5, 9), (5, 8), True),
        ((4, 9), (5, 9), True),  # cells 53 and 64: a row down, across the words
        ((10, 10), (9, 10), True),  # the last cell
    ],
)
def test_unreachable_passages_at_the_edges_of_its_bit_rows(start, beyond, reached):
    # the flood fill shifts 121 cells held as two 64-bit words: a shift must not wrap a row's end
    # into the next row, and must carry across the two words
    board = np.full((11, 11), RIGID, np.uint8)
    board[start] = PASSAGE
    board[beyond] = PASSAGE
    assert boards.unreachable_passages(board, *start) == (0 if reached else 1)


@pytest.mark.parametrize(
    ("board", "start"), [(np.zeros((9, 9), np.uint8), (1, 1)), (np.zeros((11, 11), np.uint8), (11, 0))]
)
def test_unreachable_passages_refuses_another_board_or_a_start_off_it(board, start):
    with pytest.raises(ValueError, match=r"expected an \(11, 11\) board and a start inside it, got shape"):
        boards.unreachable_passages(board, *start)


def test_reset_is_reproducible_from_the_seed_and_boards_differ_between_seeds():
    env = envs.make("pommerman")
    first = env.reset(seed=3)[0]["agent_0"]["board"].copy()
    again = env.reset(seed=3)[0]["agent_0"]["board"]
    other = env.reset(seed=4)[0]["agent_0"]["board"]
    assert (first == again).all() and (first != other).any()


def test_seeded_resets_deal_the_boards_they_always_dealt():
    # users replay games by seed: the digest of boards and items dealt by seeded resets and the resets
    # after them, taken before the single env's state was packed into one buffer (26 Nov 2026)
    env = envs.make("pommerman")
    digest = hashlib.sha256()
    for seed in (0, 1, 2, 99, 12345, 2**40 + 7, 2**63 - 1):
        env.reset(seed=seed)
        for _ in range(3):
            digest.update(env.state.board.tobytes() + env.state.items.tobytes())
            env.reset()
    assert digest.hexdigest() == "c755f44b99e0bd2d8b498bb87c5c404876a9d6b4e2608b51c4966c1d8ca143bc"


def test_core_step_on_the_state_arrays_follows_the_reference_and_refuses_what_it_cannot_change(trajectories):
    # core.step, the one-off form of the compiled rules, hands them the state's grids as flat rows
    from envs.pommerman import core
    from envs.pommerman.replay import compare_states
    from envs.pommerman.state import State, decode_state, encode_state

    _, episodes = trajectories
    episode = next(e for e in episodes if e["mode"] == "ffa")
    before = episode["initial_state"]
    for record in episode["steps"][:60]:
        state = decode_state(before, False)
        moves = [int(a[0]) if isinstance(a, (list, tuple)) else int(a) for a in record["actions"]]
        core.step(state.board, state.items, state.flames, state.agents, state.bombs, state.counts, moves, 10)
        after = State(**{**vars(state), "step_count": state.step_count + 1, "intended_actions": moves})
        assert not compare_states(encode_state(after, False), record["state"])
        before = record["state"]
    state = decode_state(before, False)
    with pytest.raises(ValueError, match="C-contiguous"):
        core.step(state.board.T, state.items, state.flames, state.agents, state.bombs, state.counts, [0] * 4, 10)


def test_the_work_buffer_holds_the_rules_scratch_arrays():
    # the single env's compiled step cuts core.step_into's scratch out of one buffer: same shapes and types
    from envs.pommerman import core, observe

    scratch, _ = observe.unpack_work(observe.new_work())
    expected = core.new_scratch()
    assert [(a.shape, a.dtype) for a in scratch] == [(a.shape, a.dtype) for a in expected]


@pytest.mark.parametrize("mode", ["ffa", "team", "radio"])
def test_each_mode_keeps_the_env_contract_and_renders(mode):
    check_env(envs.make("pommerman", mode=mode, render_mode="ansi"), episodes=2)
    env = envs.make("pommerman", mode=mode, render_mode="rgb_array", cell_pixels=4)
    env.reset(seed=0)
    frame = env.render()
    assert frame.shape == (44, 44, 3) and frame.dtype == np.uint8
    assert (env.teams is None) == (mode == "ffa")
    assert env.action_space("agent_0") == (
        envs.make("pommerman").action_space("agent_0") if mode != "radio" else env.action_space("agent_0")
    )


def test_team_mode_fogs_the_far_side_and_ffa_sees_everything():
    team = envs.make("pommerman", mode="team")
    obs, _ = team.reset(seed=1)
    board = obs["agent_0"]["board"]
    assert (board[6:, :] == 5).all() and (board[:6, :6] != 5).all()
    ffa = envs.make("pommerman")
    obs, _ = ffa.reset(seed=1)
    assert not (obs["agent_0"]["board"] == 5).any()
    assert obs["agent_0"]["board"] is not None and not obs["agent_0"]["board"].flags.writeable


def _kill(env, agent_index: int) -> dict:
    """Load the running state with a lit bomb under ``agent_index``'s feet and flames all round."""
    state = env.state_json()
    r, c = state["agents"][agent_index]["position"]
    state["flames"] = [{"position": [r, c], "life": 1}]
    state["board"][r][c] = 4
    return env.load_state(state)


def test_ffa_death_terminates_at_once_with_minus_one():
    env = envs.make("pommerman")
    env.reset(seed=0)
    obs, _ = _kill(env, 1)  # the agent on flames dies in the next step
    obs, rewards, terms, truncs, infos = env.step({a: 0 for a in obs})
    assert rewards["agent_1"] == -1.0 and terms["agent_1"] and "agent_1" not in env.agents
    assert set(obs) == {"agent_0", "agent_2", "agent_3"}
    with pytest.raises(WrongAgentsError, match=r"expected actions for exactly \['agent_0', 'agent_2', 'agent_3'\]"):
        env.step({a: 0 for a in env.possible_agents})


def test_dead_teammate_stays_until_its_side_is_decided_then_shares_the_reward():
    env = envs.make("pommerman", mode="team")
    env.reset(seed=0)
    obs, _ = _kill(env, 0)
    obs, rewards, terms, _, _ = env.step({a: 0 for a in obs})
    assert "agent_0" in env.agents and "agent_0" not in obs and not any(terms.values())
    state = env.state_json()
    for i in (2,):
        r, c = state["agents"][i]["position"]
        state["flames"].append({"position": [r, c], "life": 1})
        state["board"][r][c] = 4
    obs, _ = env.load_state(state)
    obs, rewards, terms, _, infos = env.step({a: 0 for a in obs})
    assert rewards == {"agent_0": -1.0, "agent_1": 1.0, "agent_2": -1.0, "agent_3": 1.0}
    assert all(terms.values()) and env.agents == [] and infos["agent_0"] == {"result": "Win", "winners": [1, 3]}


def test_radio_words_reach_the_teammate_next_step():
    env = envs.make("pommerman", mode="radio")
    obs, _ = env.reset(seed=0)
    assert obs["agent_2"]["message"].tolist() == [0, 0]
    obs, *_ = env.step({"agent_0": [0, 3, 7], "agent_1": [0, 1, 1], "agent_2": [0, 0, 0], "agent_3": [0, 2, 2]})
    assert obs["agent_2"]["message"].tolist() == [3, 7] and obs["agent_3"]["message"].tolist() == [1, 1]
    assert env.state_json()["radio_from_agent"]["Agent0"] == [3, 7]


def test_bad_options_and_states_name_what_was_expected():
    with pytest.raises(ValueError, match=r"Pommerman: mode must be one of \['ffa', 'team', 'radio'\], got 'duo'"):
        envs.make("pommerman", mode="duo")
    with pytest.raises(ValueError, match="Pommerman: max_steps must be an integer in 1..1000000, got 0"):
        envs.make("pommerman", max_steps=0)
    with pytest.raises(ValueError, match=f"Pommerman: max_steps must be an integer in 1..1000000, got {2**63}"):
        envs.make("pommerman", max_steps=2**63)
    with pytest.raises(ValueError, match="Pommerman: cell_pixels must be an integer in 2..128, got 100000"):
        envs.make("pommerman", render_mode="rgb_array", cell_pixels=10**5)
    with pytest.raises(ValueError, match="Pommerman: render_mode must be None, 'ansi' or 'rgb_array', got 'human'"):
        envs.make("pommerman", render_mode="human")
    env = envs.make("pommerman")
    env.reset(seed=0)
    state = env.state_json()
    with pytest.raises(ValueError, match="Pommerman.load_state: expected a state dict, got list"):
        env.load_state([])
    with pytest.raises(ValueError, match="Pommerman.load_state: the state has no 'bombs' field"):
        env.load_state({k: v for k, v in state.items() if k != "bombs"})
    state["agents"][2]["position"] = [11, 3]
    with pytest.raises(ValueError, match=r"Pommerman.load_state: agent 2 position \[11, 3\] is off the 11x11 board"):
        env.load_state(state)
    with pytest.raises(ValueError, match="Pommerman.load_state: a radio-mode state has no 'radio_from_agent' field"):
        envs.make("pommerman", mode="radio").load_state(env.state_json())


def test_states_the_rules_never_reach_are_refused_with_what_was_expected():
    env = envs.make("pommerman")
    env.reset(seed=0)
    state = env.state_json()
    r, c = state["agents"][0]["position"]
    burning = {**state, "flames": [{"position": [r, c], "life": 1}]}  # flames under a living agent
    with pytest.raises(ValueError, match=rf"flames burn on cell \[{r}, {c}\] but the board shows 10 there, not 4"):
        env.load_state(burning)
    board = np.array(state["board"])
    board[r, c] = 4
    bomb = {"position": [r, c], "bomber_id": 0, "life": 5, "blast_strength": 2, "moving_direction": None}
    with pytest.raises(ValueError, match=rf"a bomb lies on cell \[{r}, {c}\], which the board shows as flames"):
        env.load_state({**state, "board": board.tolist(), "bombs": [bomb]})
    with pytest.raises(ValueError, match=r"bomb 0 blast_strength must lie in 0..10, got 16"):
        env.load_state({**state, "bombs": [{**bomb, "blast_strength": 16}]})
    with pytest.raises(ValueError, match=r"flame 0 life must lie in 0..2, got 3"):  # the rules light flames at 2
        env.load_state({**state, "board": board.tolist(), "flames": [{"position": [r, c], "life": 3}]})
    kept = env.state_json()
    state["agents"][1]["ammo"] = 11
    with pytest.raises(ValueError, match=r"agent 1 ammo must lie in 0..10, got 11"):
        env.load_state(state)
    assert env.state_json() == kept  # a refused state changes nothing


def test_state_json_round_trips_through_load_state():
    env = envs.make("pommerman", mode="radio")
    obs, _ = env.reset(seed=5)
    for _ in range(30):
        if not obs:
            break
        obs, *_ = env.step({a: env.action_space(a).sample() for a in obs})
    state = env.state_json()
    other = envs.make("pommerman", mode="radio")
    other.load_state(state)
    assert other.state_json() == state


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), mode=st.sampled_from(["ffa", "team", "radio"]))
def test_observations_lie_in_their_space_through_random_games(seed, mode):
    env = envs.make("pommerman", mode=mode, max_steps=60)
    episode = play(env, {a: RandomAgent(seed + i) for i, a in enumerate(env.possible_agents)}, seed=seed)
    assert 0 < episode.length <= 60
    obs, _ = env.reset(seed=seed)
    while obs:
        for agent, o in obs.items():
            assert env.observation_space(agent).contains(o), (agent, o)
        obs, *_ = env.step({a: env.action_space(a).sample() for a in obs})


def test_every_edge_has_its_own_crossing_id_in_plain_python_from_the_int8_positions():
    """The state keeps positions as int8: in plain Python (no numba) ``121 + r * 11 + c`` wrapped past 127, and
    the negative id indexed ``cross`` from its end, where it met another edge's (two agents that did not
    swap were stopped as if they had)."""
    crossing = getattr(core._crossing, "py_func", core._crossing)  # the plain-Python form numba compiles
    ids = {}
    for r in range(core.SIZE):
        for c in range(core.SIZE):
            for r1, c1 in ((r + 1, c), (r, c + 1)):
                if r1 < core.SIZE and c1 < core.SIZE:
                    edge = (r, c, r1, c1)
                    key = crossing(*map(np.int8, edge))
                    assert key == crossing(r1, c1, r, c) == crossing(*edge), edge  # either way, any int type
                    assert type(key) is int and 0 <= key < 2 * core.SIZE * core.SIZE, (edge, key)
                    ids[key] = edge
    assert len(ids) == 2 * core.SIZE * (core.SIZE - 1)  # no two edges share an id
