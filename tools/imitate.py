"""Teach a trained-agent folder's policy to play as a scripted agent does: behaviour cloning with DAgger.

For a game where a scripted player already knows what a learner would take hours to find (soccer's
``soccer_chaser`` gets behind the ball and pushes it goalwards), the learner starts from it: the
folder's policy learns to act as the teacher on the observations its own stack makes. Round 0
plays games in which the teacher acts; each later round plays games in which the policy acts and
the teacher only says what it would have done (DAgger, Ross et al. 2011), so the policy learns to
recover from the places its own mistakes lead it to. After each round the policy's mean action is
fit by least squares to every label gathered so far, and its value head to the discounted returns
of the stack's rewards; its spread (``log_std``) is left as the folder has it, for
``arena train --load`` to explore with. The policy-led games are the learning curve: their score
against the opponent, written as ``imitation.csv`` and ``imitation.png``.

The interface's running statistics are gathered in round 0 (from the folder's) and then frozen; each
round's observations are recomputed through the frozen stack before fitting, so every sample is
normalised alike. The optimizer's state is dropped. The manifest records ``imitation``: the
teacher, opponent, rounds, games, seed, samples and each round's score, and the options the games were
played with (``--env-options`` over the folder's) become the folder's; where they differ from its stored
recipe's, ``recipe.json`` becomes the env's recipe for them with the folder's model (interface, algorithm,
policy), so ``arena train --load`` goes on in the game it learned, as that game's recipe trains. The folder
is rewritten after every round (content-named files, then the manifest): a run stopped keeps its last
finished round, and one stopped in its first round leaves the folder as it was.

Two kinds of model actions can be labelled. A flat Box whose stack maps it affinely (``rescale_action``,
or none): the teacher's raw action is mapped back through that map, and the mean action is fit by least
squares. A ``Discrete`` set: the label is the model action whose raw action lies nearest the teacher's
(fewest entries differ; the first on a tie), and the logits are fit by cross-entropy. Anything else is
refused. Labels come from a second copy of the stack that sees only each game's first observation: a level
whose map depends on the seat (Pommerman's ego corner turns the moves by seat) learns the seat there, a
level with a rule of its own (``doom_auto_fire``) maps every model action alike, and the stack that plays
keeps its state.
An env without sides (ViZDoom's duel) has a side per seat. The teacher and the opponent are agent specs as
tournaments read them: a registered name, ``NAME{JSON options}`` or a trained folder, one agent per seat.

``--also-env-options`` (any number) adds settings whose games each round plays too, ``--games`` of each,
labelled alike; their samples join the fit, so the policy learns what to do where it will also play (ViZDoom's
duel without the radar teaches the teacher's search for a player the radar does not show: built-in bots). Each
must give the stack the same observation and action spaces as the main games. A setting with one seat (alone
against bots) scores the learner's mean return; the curve and ``imitation.png`` are the main games', the
manifest keeps every setting's scores.

``--snapshots DIR`` keeps a copy of the folder after each round, ``DIR/round-0``, ``DIR/round-1``, ...: each an
agent, for a curve over the rounds (``bench/vizdoom_frag_curve.py``). A run refuses a ``DIR`` that already holds
one, before any game.

Usage::

    arena train soccer --timesteps 1024 --seed 11 --out soccer_bc
    python tools/imitate.py soccer_bc --teacher soccer_chaser --opponent random --rounds 4 --games 20 --seed 1000
    arena train soccer --load soccer_bc --timesteps 200000 --seed 12
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces as gym_spaces

from arena import make_env, play
from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.atomic import write_atomic
from arena.errors import AgentFolderError, ArenaError, InvalidValueError, SpaceMismatchError
from arena.specs.agents import AgentSpec
from arena.specs.options import parse_env_options, parse_json_object
from arena.training.config import RECIPE_FILE, stored_recipe
from arena.training.interface_state import KeepsStatistics, stack_statistics, trained_interface
from arena.training.recipe import TrainingRecipe, recipe_for
from arena.training.trained import load_trained_agent, read_manifest, replace_weights

GAMMA = 0.99  # the discount the value head is fit with (PPO's default)
SETTING_SEEDS = 1_000_000  # the games of further settings start their seeds this far apart


@dataclass
class Episode:
    """One seat's game: the raw observations in order, the teacher's actions (model space), the stack's rewards."""

    observations: list[Any] = field(default_factory=list)
    labels: list[np.ndarray] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)


def affine_inverse(stack: Any) -> Callable[[np.ndarray], np.ndarray]:
    """The map from a raw action back to the model's, for a stack whose action map is affine per entry.

    Raises:
        SpaceMismatchError: the model's actions are not a Box, or the stack's map is not affine.
    """
    space = stack.action_space
    if not hasattr(space, "low") or space.shape is None or len(space.shape) != 1:
        raise SpaceMismatchError(f"imitate: needs flat Box model actions, got {space}")
    zeros = np.zeros(space.shape, dtype=space.dtype)
    at_zero = np.asarray(stack.transform_action(zeros), dtype=np.float64)
    slope = np.asarray(stack.transform_action(zeros + 1), dtype=np.float64) - at_zero
    probes = (-1.0, -0.25, 0.5)  # a map affine per entry puts every probe on the line through 0 and 1
    on_line = all(
        np.allclose(np.asarray(stack.transform_action(zeros + x), dtype=np.float64), at_zero + x * slope, atol=1e-6)
        for x in probes
    )
    if not (np.all(np.abs(slope) > 1e-9) and on_line):
        raise SpaceMismatchError(f"imitate: the stack {stack} does not map the model's actions affinely")
    low, high = np.asarray(space.low, np.float64), np.asarray(space.high, np.float64)
    return lambda raw: np.clip((np.asarray(raw, np.float64) - at_zero) / slope, low, high).astype(space.dtype)


def _flat(action: Any) -> np.ndarray:
    """An action's entries as one float vector (a Dict's by key order)."""
    if isinstance(action, dict):
        return np.concatenate([_flat(action[key]) for key in sorted(action)])
    return np.asarray(action, dtype=np.float64).ravel()


def nearest_inverse(stack: Any) -> Callable[[Any], np.ndarray]:
    """The map from a raw action to the ``Discrete`` model action whose raw action is nearest (L1; first on a tie).

    Raises:
        SpaceMismatchError: the model's actions are not ``Discrete``.
    """
    space = stack.action_space
    if not isinstance(space, gym_spaces.Discrete):
        raise SpaceMismatchError(f"imitate: needs Discrete model actions here, got {space}")
    choices = [int(space.start) + index for index in range(int(space.n))]
    table = np.stack([_flat(stack.transform_action(choice)) for choice in choices])

    def inverse(raw: Any) -> np.ndarray:
        distances = np.abs(table - _flat(raw)).sum(axis=1)
        return np.asarray(choices[int(np.argmin(distances))], dtype=np.int64)

    return inverse


def labeller(stack: Any) -> Callable[[Any], np.ndarray]:
    """The teacher's raw action as a model action: :func:`nearest_inverse` for Discrete, else :func:`affine_inverse`."""
    if isinstance(stack.action_space, gym_spaces.Discrete):
        return nearest_inverse(stack)
    return affine_inverse(stack)


class Pupil(Agent):
    """Inside the folder's stack: records what the model sees and acts as the policy or as the teacher."""

    def __init__(self, policy: Any, episodes: list[Episode], *, leads: bool) -> None:
        super().__init__()
        self.policy, self.episodes, self.leads = policy, episodes, leads  # leads: the teacher's action is played
        self.episode = Episode()
        self.label: np.ndarray | None = None

    def reset(self, *, seed: int | None = None) -> None:
        self.episode = Episode()  # this seat's own record: the seats of a side play at once
        self.episodes.append(self.episode)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        if self.episode.observations:
            self.episode.rewards.append(float(reward))
        if self.leads:
            return self.label
        action, _ = self.policy.predict(observation, deterministic=True)
        return action

    def done(self, reward: float, info: dict[str, Any]) -> None:
        self.episode.rewards.append(float(reward))


class Demonstration(Agent):
    """A seat where the teacher labels every raw observation and the pupil (behind the stack) plays."""

    def __init__(self, teacher: Agent, pupil: Pupil, stack: Any, probe: Any) -> None:
        super().__init__()
        self.teacher, self.pupil, self.player = teacher, pupil, AgtItfWrapper(pupil, stack)
        self.probe = probe  # a copy of the stack that only labels: it sees each game's first observation only
        self.inverse: Callable[[Any], np.ndarray] | None = None
        self.fresh = True

    def setup(self, observation_space: Any, action_space: Any) -> None:
        super().setup(observation_space, action_space)
        self.teacher.setup(observation_space, action_space)
        self.player.setup(observation_space, action_space)
        self.probe.setup(observation_space, action_space)
        self.inverse = labeller(self.probe)

    def reset(self, *, seed: int | None = None) -> None:
        self.teacher.reset(seed=seed)
        self.player.reset(seed=seed)
        self.fresh = True

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        if self.inverse is None:
            raise RuntimeError("Demonstration.act before setup")
        if self.fresh:  # the game's first observation: a map that depends on the seat (the ego corner) learns it
            self.probe.transform_reset(observation)
            self.inverse, self.fresh = labeller(self.probe), False
        label = self.inverse(self.teacher.act(observation, action_mask, reward))
        self.pupil.label = label
        action = self.player.act(observation, action_mask, reward)
        self.pupil.episode.observations.append(observation)
        self.pupil.episode.labels.append(label)
        return action

    def done(self, reward: float, info: dict[str, Any]) -> None:
        self.teacher.done(reward, info)
        self.player.done(reward, info)


def folder_stack(folder: Path, statistics: dict[str, Any] | None, *, frozen: bool = True) -> Any:
    """The folder's stack with its own statistics (``None``) or ``statistics`` loaded."""
    stack = trained_interface(folder, frozen=frozen)
    if stack is None:
        raise AgentFolderError(f"{folder}: imitate needs a folder with an interface stack")
    for index, level in enumerate(stack.levels()):
        if statistics is not None and isinstance(level, KeepsStatistics) and str(index) in statistics:
            level.load_statistics(statistics[str(index)])
            if frozen:
                level.freeze()
    return stack


def gathered_statistics(folder: Path, episodes: Sequence[Episode], spaces: tuple[Any, Any]) -> dict[str, Any]:
    """The folder's running statistics carried on over ``episodes``, by one stack that sees them all in turn."""
    stack = folder_stack(folder, None, frozen=False)
    stack.setup(*spaces)
    for episode in episodes:
        for step, observation in enumerate(episode.observations):
            (stack.transform_reset if step == 0 else stack.transform_observation)(observation)
    return stack_statistics(stack)


def features(
    folder: Path, statistics: dict[str, Any], episodes: Sequence[Episode], spaces: tuple[Any, Any]
) -> np.ndarray:
    """Every recorded observation as the model sees it through the folder's stack frozen at ``statistics``."""
    stack = folder_stack(folder, statistics)
    stack.setup(*spaces)
    rows = []
    for episode in episodes:
        for step, observation in enumerate(episode.observations):
            transform = stack.transform_reset if step == 0 else stack.transform_observation
            rows.append(np.asarray(transform(observation), dtype=np.float32))
    return np.stack(rows)


def returns(episodes: Sequence[Episode]) -> np.ndarray:
    """The discounted return from every step of every episode (no bootstrap past its end)."""
    found: list[float] = []
    for episode in episodes:
        total, backwards = 0.0, []
        for reward in reversed(episode.rewards):
            total = reward + GAMMA * total
            backwards.append(total)
        found.extend(reversed(backwards))
    return np.asarray(found, dtype=np.float32)


def fit(
    policy: Any, observations: np.ndarray, labels: np.ndarray, targets: np.ndarray, epochs: int, seed: int
) -> float:
    """The policy's actions fit to ``labels``, and its value to ``targets`` by least squares.

    A Box policy's mean action is fit by least squares, a Discrete one's logits by cross-entropy.

    Returns:
        The last epoch's mean loss of the actions (squared error, or cross-entropy).
    """
    import torch  # where it is used: a bad argument is refused before torch loads (about 2.5 s)

    generator = torch.Generator().manual_seed(seed)
    parameters = [p for name, p in policy.named_parameters() if name != "log_std"]
    optimizer = torch.optim.Adam(parameters, lr=1e-3)
    inputs, wanted, values = torch.as_tensor(observations), torch.as_tensor(labels), torch.as_tensor(targets)
    discrete = isinstance(policy.action_space, gym_spaces.Discrete)
    if discrete:
        wanted = wanted.long() - int(policy.action_space.start)
    policy.set_training_mode(True)
    loss_sum = 0.0
    for _epoch in range(epochs):
        order, loss_sum, batches = torch.randperm(len(inputs), generator=generator), 0.0, 0
        for start in range(0, len(inputs), 256):
            rows = order[start : start + 256]
            distribution = policy.get_distribution(inputs[rows]).distribution
            if discrete:
                action_loss = torch.nn.functional.cross_entropy(distribution.logits, wanted[rows])
            else:
                action_loss = ((distribution.mean - wanted[rows]) ** 2).mean()
            loss = action_loss + 0.5 * ((policy.predict_values(inputs[rows]).squeeze(-1) - values[rows]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_sum, batches = loss_sum + float(action_loss.detach()), batches + 1
        loss_sum /= max(batches, 1)
    policy.set_training_mode(False)
    return loss_sum


def agent_spec(text: str, role: str) -> AgentSpec:
    """One agent's spec as tournaments read it: ``NAME``, ``NAME{JSON options}`` or a trained folder.

    Raises:
        InvalidValueError: a team entrant (``a+b``); the teacher and the opponent are one agent per seat.

    Example:
        >>> agent_spec('pommerman_shadow{"approach": 2}', "teacher").kwargs
        {'approach': 2}
    """
    spec = AgentSpec.parse(text)
    if spec.is_team:
        raise InvalidValueError(
            f"the {role} is one agent (NAME or NAME{{JSON options}}), got the team entrant {text!r}"
        )
    return spec


def play_round(
    env: Any,
    folder: Path,
    policy: Any,
    teacher: str,
    opponent: str,
    statistics: dict[str, Any] | None,
    games: int,
    seed: int,
    leads: bool,
) -> tuple[list[Episode], float]:
    """``games`` games, the learner's side alternating between the env's sides; ``(episodes, score)``.

    The score counts a win 1 and a draw 0.5, from the learner's side. An env without sides has one per seat;
    with a single seat (alone against built-in bots) the score is the learner's mean return.
    """
    teams = env.teams or {seat: (seat,) for seat in env.possible_agents}
    sides = list(teams)
    episodes: list[Episode] = []
    points = 0.0
    # one demonstrating seat per member of a side, kept across games (its stack is built once)
    members = max(len(seats) for seats in teams.values())
    teacher_spec, opponent_spec = agent_spec(teacher, "teacher"), agent_spec(opponent, "opponent")
    learners = [
        Demonstration(
            teacher_spec.build(env),
            Pupil(policy, episodes, leads=leads),
            folder_stack(folder, statistics),
            folder_stack(folder, statistics),
        )
        for _member in range(members)
    ]
    for game in range(games):
        side = sides[game % len(sides)]
        agents: dict[str, Agent] = {}
        for team, seats in teams.items():
            for member, seat in enumerate(seats):
                agents[seat] = learners[member] if team == side else opponent_spec.build(env)
        episode = play(env, agents, seed=seed + game)
        results = episode.team_returns if env.teams else episode.returns
        ours = results[side]
        others = [value for team, value in results.items() if team != side]
        if not others:  # one seat (alone against built-in bots): its return is the score
            points += ours
            continue
        theirs = max(others)
        points += 1.0 if ours > theirs else 0.5 if ours == theirs else 0.0
    return episodes, points / max(games, 1)


def imitate(
    folder: Path,
    *,
    teacher: str,
    opponent: str,
    rounds: int,
    games: int,
    seed: int,
    epochs: int,
    env_options: dict[str, Any],
    also_env_options: Sequence[dict[str, Any]] = (),
    snapshots: Path | None = None,
) -> list[tuple[int, str, float, int]]:
    """Teach ``folder``'s policy to act as ``teacher`` and save it there; returns each round's
    ``(round, who played, score against the opponent, samples so far)`` in the main games.

    Each of ``also_env_options`` (laid over the main games' options) is one more setting: every round also
    plays ``games`` games there, and their samples join the fit. With ``snapshots``, the folder is copied to
    ``snapshots / f"round-{k}"`` after round ``k``.

    Raises:
        SpaceMismatchError: a further setting gives the stack other observation or action spaces.
        InvalidValueError: ``snapshots`` already holds a round's copy (it would be overwritten).
    """
    taken = sorted(path.name for path in snapshots.glob("round-*")) if snapshots is not None else []
    if taken:
        raise InvalidValueError(
            f"imitate: --snapshots {snapshots} already holds {', '.join(taken)}; give an empty folder"
        )
    for text, role in ((teacher, "teacher"), (opponent, "opponent")):
        agent_spec(text, role)  # a bad spec fails here, before any game is played
    manifest = read_manifest(folder)
    if manifest["format_version"] < 2:
        raise AgentFolderError(
            f"{folder} is a format-1 folder: python -m arena.training.convert {folder} --trust first"
        )
    if not manifest.get("interface"):
        raise AgentFolderError(f"{folder}: imitate needs a folder with an interface stack, got none in its manifest")
    # the options the games were played with (the folder's, as --env-options overlaid them): a rerun needs them
    played_options = {**manifest.get("env_options", {}), **env_options}
    settings = [Setting(make_env(manifest["env"], **played_options), played_options)]
    try:
        for extra in also_env_options:
            options = {**played_options, **extra}
            settings.append(Setting(make_env(manifest["env"], **options), options))
        for setting in settings[1:]:
            same_model_spaces(folder, settings[0].spaces, setting.spaces)
        lesson = Lesson(teacher, opponent, rounds, games, seed, epochs, snapshots)
        return taught(folder, manifest, settings, lesson, played_options)
    finally:
        for setting in settings:
            setting.env.close()


@dataclass(frozen=True)
class Lesson:
    """What :func:`imitate` was asked: who teaches and who opposes, how many rounds of how many games, the seed,
    the epochs of each fit, and where each round's copy goes (or ``None``)."""

    teacher: str
    opponent: str
    rounds: int
    games: int
    seed: int
    epochs: int
    snapshots: Path | None


def taught(
    folder: Path,
    manifest: dict[str, Any],
    settings: Sequence[Setting],
    lesson: Lesson,
    played_options: dict[str, Any],
) -> list[tuple[int, str, float, int]]:
    """The DAgger rounds of :func:`imitate` over its settings (the main games first); the folder saved after each."""
    teacher, opponent, games, seed, epochs = lesson.teacher, lesson.opponent, lesson.games, lesson.seed, lesson.epochs
    policy = load_trained_agent(folder, env=settings[0].env).agent.policy  # type: ignore[attr-defined]
    import torch  # as in fit: not at the top

    torch.manual_seed(seed)
    statistics: dict[str, Any] | None = None
    curve: list[tuple[int, str, float, int]] = []
    record: dict[str, Any] = {"teacher": teacher, "opponent": opponent, "games": games, "seed": seed}
    record.update(epochs=epochs, env_options=played_options)
    if len(settings) > 1:
        record["also_env_options"] = [s.options for s in settings[1:]]
    recipe = recipe_for_games(folder, manifest, played_options)
    for round_index in range(lesson.rounds):
        leads = round_index == 0  # round 0: the teacher plays; then the policy plays and the teacher labels
        for number, setting in enumerate(settings):
            first = seed + number * SETTING_SEEDS + round_index * games  # each setting its own seeds
            played, score = play_round(setting.env, folder, policy, teacher, opponent, statistics, games, first, leads)
            setting.episodes.extend(played)
            setting.scores.append(score)
            if statistics is None:
                statistics = gathered_statistics(folder, played, setting.spaces)
        observations = np.concatenate([features(folder, statistics or {}, s.episodes, s.spaces) for s in settings])
        everything = [episode for setting in settings for episode in setting.episodes]
        labels = np.stack([label for episode in everything for label in episode.labels]).astype(np.float32)
        loss = fit(policy, observations, labels, returns(everything), epochs, seed + round_index)
        curve.append((round_index, teacher if leads else "policy", settings[0].scores[-1], len(labels)))
        further = "".join(f", {s.scores[-1]:.3f} in setting {n}" for n, s in enumerate(settings) if n)
        print(
            f"round {round_index}: {curve[-1][1]} played, score {curve[-1][2]:.3f} over {games} games{further}; "
            f"{len(labels)} samples, action error {loss:.4f}",
            flush=True,
        )
        if len(settings) > 1:
            record["also_scores"] = [[round(x, 4) for x in s.scores] for s in settings[1:]]
        # saved every round: a run stopped keeps its last finished round
        save(folder, manifest, policy, statistics or {}, curve, recipe, **record)
        if lesson.snapshots is not None:
            shutil.copytree(folder, lesson.snapshots / f"round-{round_index}")
    return curve


@dataclass
class Setting:
    """One kind of game a round plays: its env and the options it was made with, its episodes, each round's score."""

    env: Any
    options: dict[str, Any]
    episodes: list[Episode] = field(default_factory=list)
    scores: list[float] = field(default_factory=list)

    @property
    def spaces(self) -> tuple[Any, Any]:
        """The first seat's observation and action spaces, which the folder's stack is set up on."""
        seat = self.env.possible_agents[0]
        return self.env.observation_space(seat), self.env.action_space(seat)


def same_model_spaces(folder: Path, main: tuple[Any, Any], other: tuple[Any, Any]) -> None:
    """Refuse a further setting in which the folder's stack gives the model other spaces than the main games.

    Raises:
        SpaceMismatchError: the observation or action spaces differ.
    """
    found = []
    for spaces in (main, other):
        stack = folder_stack(folder, None)
        stack.setup(*spaces)
        found.append((stack.observation_space, stack.action_space))
    if found[0] != found[1]:
        raise SpaceMismatchError(
            f"imitate: a further setting must give the model the main games' spaces {found[0]}, got {found[1]}"
        )


def recipe_for_games(folder: Path, manifest: Mapping[str, Any], env_options: dict[str, Any]) -> TrainingRecipe | None:
    """The recipe ``arena train --load`` should find once the folder has learned in games of ``env_options``.

    ``None`` (keep the folder's) when the options are the stored recipe's. Otherwise the env's recipe for those
    options (a Pommerman FFA folder taught team mode trains on as a team: control, opponents, games), with the
    model's fields kept from the folder (interface, algorithm and its options, policy), since the weights are
    that model's. A folder without a stored recipe gets the env's, with the manifest's interface and algorithm.
    """
    stored = stored_recipe(folder)
    if stored is not None and dict(stored.env_options) == env_options:
        return None
    fresh = recipe_for(manifest["env"], env_options)
    model = stored or replace(fresh, interface=manifest["interface"], algo=manifest["algo"])
    return replace(
        fresh,
        interface=model.interface,
        algo=model.algo,
        algo_options=model.algo_options,
        policy=model.policy,
        env_options=dict(env_options),
    )


def save(
    folder: Path,
    manifest: dict[str, Any],
    policy: Any,
    statistics: dict[str, Any],
    curve: Sequence[tuple[int, str, float, int]],
    recipe: TrainingRecipe | None,
    **settings: Any,
) -> None:
    """The new weights and statistics into ``folder``, the curve and the recipe (where the games' options
    changed it) beside them, then the manifest."""
    write_curve(folder, curve, settings["teacher"], settings["opponent"])
    if recipe is not None:
        write_atomic(folder / RECIPE_FILE, json.dumps(recipe.to_json(), indent=2) + "\n")
    record = {
        **settings,
        "rounds": len(curve),
        "samples": curve[-1][3] if curve else 0,
        "scores": [round(score, 4) for _round, _who, score, _samples in curve],
    }
    from arena.training.weights import save_policy_weights  # imports torch: as in fit, not at the top

    replace_weights(
        folder,
        manifest,
        lambda path: save_policy_weights(policy, path),
        statistics=statistics,
        # the games' options become the folder's: `arena train --load` and tournaments go on in the game it learned
        record={"imitation": record, "env_options": settings["env_options"]},
    )


def write_curve(folder: Path, curve: Sequence[tuple[int, str, float, int]], teacher: str, opponent: str) -> None:
    """``imitation.csv`` and ``imitation.png``: each round's score against the opponent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    def table(path: Path) -> None:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["round", "played_by", "score", "samples"])
            writer.writerows(curve)

    write_atomic(folder / "imitation.csv", table)
    figure, axes = plt.subplots(figsize=(6, 3.5))
    policy_rounds = [(r, score) for r, who, score, _samples in curve if who == "policy"]
    if policy_rounds:
        axes.plot(*zip(*policy_rounds), marker="o", label="the policy")
    for r, who, score, _samples in curve:
        if who != "policy":
            axes.axhline(score, color="grey", linestyle="--", label=f"{who} (round {r})")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel("DAgger round")
    axes.set_ylabel(f"score vs {opponent} (win 1, draw 0.5)")
    axes.set_ylim(0, 1)
    axes.set_title(f"imitating {teacher}")
    axes.legend(loc="lower right")
    figure.tight_layout()
    write_atomic(folder / "imitation.png", lambda path: figure.savefig(path, format="png", dpi=100))
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a folder arena train --out wrote (its weights are replaced)")
    parser.add_argument(
        "--teacher",
        required=True,
        help='the scripted agent to imitate: a registered name, with options as NAME{"key": value}',
    )
    parser.add_argument("--opponent", default="random", help="the agent on the other sides (default: random)")
    parser.add_argument("--rounds", type=int, default=4, help="round 0 the teacher plays, then the policy (default: 4)")
    parser.add_argument("--games", type=int, default=20, help="games a round (default: 20)")
    parser.add_argument("--epochs", type=int, default=10, help="passes over the samples after each round (default: 10)")
    parser.add_argument("--seed", type=int, default=0, help="the first game's seed and the fit's (default: 0)")
    parser.add_argument("--env-options", help="a JSON object laid over the folder's env options")
    parser.add_argument(
        "--also-env-options",
        action="append",
        default=[],
        metavar="JSON",
        help="a further setting (a JSON object laid over the games' options) whose games each round also plays; "
        "repeat for more",
    )
    parser.add_argument("--snapshots", type=Path, help="a folder to keep a copy of the agent after each round in")
    args = parser.parse_args()
    if args.rounds < 1 or args.games < 1 or args.epochs < 1:
        parser.error(
            f"--rounds, --games and --epochs must be at least 1, got {args.rounds}, {args.games}, {args.epochs}"
        )
    try:
        env_options = parse_env_options(args.env_options)
        also = [parse_json_object(text, "--also-env-options") for text in args.also_env_options]
    except ArenaError as err:
        parser.error(str(err))
    try:
        imitate(
            args.folder,
            teacher=args.teacher,
            opponent=args.opponent,
            rounds=args.rounds,
            games=args.games,
            seed=args.seed,
            epochs=args.epochs,
            env_options=env_options,
            also_env_options=also,
            snapshots=args.snapshots,
        )
    except ArenaError as err:  # a missing or broken folder, an unknown agent, a stack that cannot be labelled
        text = str(err)  # the tool's own checks name it already
        raise SystemExit(text if text.startswith("imitate: ") else f"imitate: {text}") from None
    print(f"{args.folder}: the policy imitates {args.teacher}; go on with arena train --load {args.folder}")


if __name__ == "__main__":
    main()
