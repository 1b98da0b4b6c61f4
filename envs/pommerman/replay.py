"""Replay reference trajectories step by step and count agreement (used by the tests and bench)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["read_trajectories", "compare_states", "replay_episode", "step_events"]


def read_trajectories(path: str | Path) -> tuple[dict[str, Any], Iterator[dict[str, Any]]]:
    """The metadata record and an iterator over the episodes of a ``.jsonl.gz`` trajectory file."""
    handle = gzip.open(path, "rt")
    meta = json.loads(handle.readline())

    def episodes() -> Iterator[dict[str, Any]]:
        with handle:
            for line in handle:
                if line.strip():
                    yield json.loads(line)

    return meta, episodes()


def _multiset(records: list[dict[str, Any]]) -> Counter:
    return Counter(json.dumps(r, sort_keys=True) for r in records)


def compare_states(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    """The names of the state fields that differ (bombs, flames and items as multisets)."""
    bad: list[str] = []
    for key in ("board", "step_count", "agents", "radio_from_agent"):
        if key in theirs and ours.get(key) != theirs[key]:
            bad.append(key)
    for key in ("bombs", "flames", "items"):
        if _multiset(ours[key]) != _multiset(theirs[key]):
            bad.append(key)
    return bad


def replay_episode(
    env, episode: dict[str, Any], events: Counter | None = None, failed_events: Counter | None = None
) -> list[tuple[int, list[str]]]:
    """Replay every step of ``episode`` from its recorded state; return ``(step, mismatches)`` per failing step.

    With ``events``/``failed_events``, count the rule events of each step (:func:`step_events`)
    and those of the steps that did not match.
    """
    failures = []
    before = episode["initial_state"]
    for t, record in enumerate(episode["steps"]):
        env.load_state(before)
        acting = list(env._acting)
        actions = {a: record["actions"][int(a[-1])] for a in acting}
        _, rewards, terms, _, infos = env.step(actions)
        bad = compare_states(env.state_json(), record["state"])
        ref_rewards = record["rewards"]
        for a, r in rewards.items():
            if r != ref_rewards[int(a[-1])]:
                bad.append(f"reward {a}")
        done = env._acting is None
        if done != record["done"]:
            bad.append("done")
        if done and infos and next(iter(infos.values())) != record["info"]:
            bad.append("info")
        for i, (ours, theirs) in enumerate(zip(env.reference_observations(), record["observations"])):
            for key, value in theirs.items():
                if ours.get(key) != value:
                    bad.append(f"obs {i} {key}")
        if bad:
            failures.append((t, bad))
        if events is not None:
            happened = step_events(before, record, episode["mode"])
            events.update(happened)
            if bad and failed_events is not None:
                failed_events.update(happened)
        before = record["state"]
    return failures


_PICKUPS = {6: "pickup_extra_bomb", 7: "pickup_incr_range", 8: "pickup_kick"}
_REVEALS = {6: "item_revealed_extra_bomb", 7: "item_revealed_incr_range", 8: "item_revealed_kick"}


def step_events(before: dict[str, Any], record: dict[str, Any], mode: str) -> set[str]:
    """The rule events (FORMAT.md's coverage names) that happen in one recorded step."""
    after = record["state"]
    events: set[str] = set()
    board0, board1 = before["board"], after["board"]
    moves = [a[0] if isinstance(a, list) else a for a in record["actions"]]
    agents0, agents1 = before["agents"], after["agents"]
    for a0, a1, move in zip(agents0, agents1, moves):
        if not a0["is_alive"]:
            continue
        if not a1["is_alive"]:
            events.add("agent_death")
        if move == 5:
            events.add("bomb_action")
        r, c = a0["position"]
        if 1 <= move <= 4:
            tr, tc = r + (-1, 1, 0, 0)[move - 1], c + (0, 0, -1, 1)[move - 1]
            if not (0 <= tr < 11 and 0 <= tc < 11):
                events.add("move_off_board")
            elif board0[tr][tc] in (1, 2):
                events.add("move_into_wall")
            elif a1["position"] == [r, c]:
                events.add("move_blocked_any")
            if 0 <= tr < 11 and 0 <= tc < 11 and board0[tr][tc] == 4:
                events.add("walk_into_flames")
            if a1["position"] != [r, c] and 0 <= tr < 11 and 0 <= tc < 11:
                code = board0[tr][tc]
                if code in _PICKUPS:
                    events.add(_PICKUPS[code])
    n0 = len(before["bombs"])
    laid = sum(
        1
        for b in after["bombs"]
        if b["life"] == 9
        and b["moving_direction"] is None
        and not any(x["position"] == b["position"] and x["bomber_id"] == b["bomber_id"] for x in before["bombs"])
    )
    if laid:
        events.add("bomb_laid")
    if len(after["bombs"]) < n0 + laid:
        events.add("bomb_explosion")
        if n0 + laid - len(after["bombs"]) >= 2:
            events.add("multi_bomb_explosion_step")
    if any(b["moving_direction"] is not None for b in after["bombs"]):
        events.add("moving_bomb_step")
    if any(b["moving_direction"] is not None for b in before["bombs"]) and sum(
        b["moving_direction"] is not None for b in after["bombs"]
    ) < sum(b["moving_direction"] is not None for b in before["bombs"]):
        events.add("moving_bomb_stopped")
    if any(
        b["moving_direction"] is not None and not any(x["position"] == b["position"] for x in before["bombs"])
        for b in after["bombs"]
    ) and any(a["can_kick"] for a in agents0):
        events.add("kick_success")
    for r in range(11):
        for c in range(11):
            if board0[r][c] == 2 and board1[r][c] != 2:
                events.add("wood_destroyed")
            if board0[r][c] in _REVEALS and board1[r][c] == 4:
                events.add("item_destroyed_by_flames")
    hidden0 = {tuple(p): v for p, v in before["items"]}
    hidden1 = {tuple(p) for p, _ in after["items"]}
    for cell, code in hidden0.items():
        if cell not in hidden1:
            events.add(_REVEALS[code] if board1[cell[0]][cell[1]] == code else "hidden_item_lost_to_flames")
    cells = [tuple(f["position"]) for f in after["flames"]]
    if len(cells) != len(set(cells)):
        events.add("overlapping_flames")
    if mode != "ffa":
        events.add("fogged_observation")
        if any(a["blast_strength"] == 4 and move != 0 and 1 <= move <= 4 for a, move in zip(agents0, moves)) and any(
            a0["is_alive"]
            and a0["blast_strength"] == 4
            and a1["position"] != a0["position"]
            and board0[a1["position"][0]][a1["position"][1]] == 7
            for a0, a1 in zip(agents0, agents1)
        ):
            events.add("pickup_incr_range_at_cap")
    if mode == "radio" and any(isinstance(a, list) and (a[1] or a[2]) for a in record["actions"]):
        events.add("radio_words_sent")
    if record["done"]:
        info = record["info"]
        if info["result"] == "Win":
            events.add("end_ffa_win" if mode == "ffa" else "end_team_win")
        elif after["step_count"] >= 800:
            events.add("end_step_limit_tie")
        else:
            events.add("end_all_dead_tie")
    return events


def simple_agent_agreement(episodes, make_agent) -> tuple[int, int]:
    """How often an agent picks the reference SimpleAgent's recorded action: ``(same, total)``.

    Each SimpleAgent seat of each episode gets a fresh ``make_agent(seat)`` that is shown the
    recorded observations in order (so its memory follows the recorded game) while it is alive.
    """
    import numpy as np
    from gymnasium import spaces

    same = total = 0
    for episode in episodes:
        for seat, kind in enumerate(episode["agents"]):
            if kind != "SimpleAgent":
                continue
            agent = make_agent(seat)
            agent.setup(
                spaces.Dict(
                    {
                        k: spaces.Discrete(1)
                        for k in ("board", "bomb_blast_strength", "position", "enemies", "ammo", "blast_strength")
                    }
                ),
                spaces.Discrete(6),
            )
            agent.reset(seed=seat)
            observations = [episode["initial_observations"]] + [s["observations"] for s in episode["steps"]]
            before = episode["initial_state"]
            for t, record in enumerate(episode["steps"]):
                if before["agents"][seat]["is_alive"]:
                    raw = observations[t][seat]
                    obs = {
                        "board": np.array(raw["board"], dtype=np.uint8),
                        "bomb_blast_strength": np.array(raw["bomb_blast_strength"], dtype=np.uint8),
                        "position": np.array(raw["position"]),
                        "enemies": np.array(raw["enemies"]),
                        "ammo": raw["ammo"],
                        "blast_strength": raw["blast_strength"],
                    }
                    action = record["actions"][seat]
                    action = action[0] if isinstance(action, list) else action
                    same += int(agent.act(obs) == action)
                    total += 1
                before = record["state"]
    return same, total
