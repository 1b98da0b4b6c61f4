"""Trained Stable-Baselines3 policies as arena agents (masks respected, interfaces optional)."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.errors import ArenaError, InvalidTypeError, InvalidValueError, SpaceMismatchError, UnknownNameError
from arena.interface import Interface
from arena.specs.interfaces import build_interface

__all__ = ["SB3Agent", "load_sb3_agent", "algorithm_class", "as_sb3_sees", "freeze", "ALGORITHMS"]

ALGORITHMS: dict[str, str] = {
    "maskable-ppo": "sb3_contrib:MaskablePPO",
    "ppo": "stable_baselines3:PPO",
    "a2c": "stable_baselines3:A2C",
    "dqn": "stable_baselines3:DQN",
}

_EXTRA_HINT = "install the 'train' extra: pip install torch==2.13.0 && pip install 'arena-marl[train]'"


def require_sb3() -> None:
    """Import Stable-Baselines3 (and sb3-contrib), or fail naming the setup.cfg extra."""
    try:
        import sb3_contrib  # noqa: F401
        import stable_baselines3  # noqa: F401
    except ImportError as err:
        raise ImportError(f"arena.training needs stable-baselines3 and sb3-contrib ({err}); {_EXTRA_HINT}") from err


def algorithm_class(algo: str) -> type[Any]:
    """The SB3 algorithm class for ``algo`` (``"maskable-ppo"``, ``"ppo"``, ``"a2c"``, ``"dqn"``).

    ``algo`` may come from data (an agent folder's manifest), but only picks a row of arena's own
    table: the class imported is arena's choice, so reading a results file or a folder needs no
    ``--trust`` for it (:func:`arena.registry.reading_data` guards names that data chooses).

    Raises:
        UnknownNameError: ``algo`` is not one of :data:`ALGORITHMS`.
        ImportError: Stable-Baselines3 is missing (names the extra to install).
    """
    if algo not in ALGORITHMS:
        raise UnknownNameError(f"unknown algorithm {algo!r}; expected one of {', '.join(ALGORITHMS)}")
    require_sb3()
    module, _, name = ALGORITHMS[algo].partition(":")
    algorithm: type[Any] = getattr(importlib.import_module(module), name)
    return algorithm


def freeze(policy: Any) -> Any:
    """A frozen copy of an SB3 policy (or of a model's policy): later training leaves it unchanged."""
    policy = getattr(policy, "policy", policy)
    # Rebuilt from its constructor arguments and weights (SB3's own save/load route):
    # a deepcopy would also copy the last training batch's autograd graph, and fails.
    frozen = type(policy)(**policy._get_constructor_parameters())
    frozen.load_state_dict(policy.state_dict())
    frozen.to(policy.device)
    frozen.set_training_mode(False)
    for parameter in frozen.parameters():
        parameter.requires_grad_(False)
    return frozen


class SB3Agent(Agent):
    """An arena agent that acts with a Stable-Baselines3 policy.

    On a Discrete action space the agent reads the policy's action logits (or a DQN's
    Q-values), removes the actions the mask forbids, and takes the best one
    (``deterministic=True``) or samples from the rest with its own seeded generator.
    This works for ``MaskablePPO`` and equally for a plain ``PPO`` policy trained
    without masks, so neither ever plays an illegal move. On a ``MultiDiscrete`` space (Pommerman's
    radio: a move and two words) it does the same per component, reading the mask in MaskablePPO's
    layout (the components' flags one after the other); sampling draws from its own generator too.
    Other action spaces use the policy's ``predict``.

    The agent acts in the policy's own spaces; to play on a raw env whose spaces differ,
    put the training interface around it (:func:`load_sb3_agent` does).

    Args:
        policy: an SB3 policy, or a model whose ``policy`` is used (not copied: pass
            :func:`freeze` of it for a snapshot that later training leaves alone).
        deterministic: take the most likely legal action instead of sampling.
        seed: seeds the sampling generator (``reset(seed=...)`` re-seeds it).
        name: the name shown in tournaments and logs.

    Example:
        >>> from sb3_contrib import MaskablePPO
        >>> import envs
        >>> from arena import play, RandomAgent
        >>> from arena.training import SingleAgentEnv, SB3Agent
        >>> model = MaskablePPO("MlpPolicy", SingleAgentEnv(envs.make("tic_tac_toe")), n_steps=64, seed=0)
        >>> episode = play(envs.make("tic_tac_toe"), [SB3Agent(model), RandomAgent(seed=0)], seed=0)
        >>> episode.length >= 5
        True
    """

    def __init__(
        self, policy: Any, *, deterministic: bool = True, seed: int | None = None, name: str | None = None
    ) -> None:
        require_sb3()
        from stable_baselines3.common.policies import BasePolicy

        policy = getattr(policy, "policy", policy)
        if not isinstance(policy, BasePolicy):
            raise InvalidTypeError(
                f"SB3Agent: expected a Stable-Baselines3 policy or model, got {type(policy).__name__}"
            )
        self.policy = policy
        self.deterministic = bool(deterministic)
        self.name = name or f"SB3Agent({type(policy).__name__})"
        self._rng = np.random.default_rng(seed)
        space = policy.action_space
        self._discrete = isinstance(space, spaces.Discrete)
        self._start = int(space.start) if isinstance(space, spaces.Discrete) else 0
        # MultiDiscrete (one axis): the logits are the components' one after the other, as MaskablePPO's masks
        flat = isinstance(space, spaces.MultiDiscrete) and space.nvec.ndim == 1
        self._segments: list[int] | None = None
        self._starts = np.zeros(0, dtype=np.int64)
        if isinstance(space, spaces.MultiDiscrete) and flat:
            self._segments = [int(n) for n in space.nvec]
            self._starts = np.asarray(space.start, dtype=np.int64)
        self._maskable = _is_maskable(policy)
        self._actor = _actor_parts(policy) if self._discrete or flat else None

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        """Check that the env's spaces are the policy's.

        Raises:
            SpaceMismatchError: naming the agent, what the policy was trained on and what came.
        """
        seen = as_sb3_sees(observation_space)
        if seen != self.policy.observation_space or action_space != self.policy.action_space:
            raise SpaceMismatchError(
                f"{self}: the policy was trained on observations {self.policy.observation_space} and actions "
                f"{self.policy.action_space}, got {observation_space} and {action_space}; put the training "
                "interface around the agent (arena.AgtItfWrapper, or load_sb3_agent(..., interface=...))"
            )
        super().setup(observation_space, action_space)

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        import torch as th

        policy = self.policy
        if self._segments is not None and self._actor is not None:
            with th.no_grad():
                obs_tensor, _ = policy.obs_to_tensor(observation)
                scores = self._scores(obs_tensor).double().cpu().numpy()
            masks = None if action_mask is None else np.asarray(action_mask).reshape(1, -1)
            return self._pick_components(scores, masks)[0]
        if not self._discrete:
            kwargs = {"action_masks": action_mask} if self._maskable and action_mask is not None else {}
            action, _ = policy.predict(observation, deterministic=self.deterministic, **kwargs)
            return action
        with th.no_grad():
            obs_tensor, _ = policy.obs_to_tensor(observation)
            scores = self._scores(obs_tensor)[0].double().cpu().numpy()
        if action_mask is not None:
            legal = np.asarray(action_mask, dtype=bool)
            if not legal.any():
                raise InvalidValueError(f"{self}: the action mask allows no action")
            scores = np.where(legal, scores, -np.inf)
        if self.deterministic:
            return self._start + int(np.argmax(scores))
        probabilities = np.exp(scores - scores.max())
        probabilities /= probabilities.sum()
        return self._start + int(self._rng.choice(len(probabilities), p=probabilities))

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        """Actions for many games with one forward pass (Discrete and MultiDiscrete action spaces).

        As :meth:`act`: the best legal action, or a sample from the legal ones (drawn
        with the Gumbel-max trick from the agent's generator); per component on ``MultiDiscrete``,
        one row of components per game.
        """
        import torch as th

        if not self._discrete and (self._segments is None or self._actor is None):
            raise NotImplementedError(
                f"{self}: act_batch needs a Discrete or MultiDiscrete action space, got {self.policy.action_space}"
            )
        with th.no_grad():
            obs_tensor = th.as_tensor(np.asarray(observations), device=self.policy.device)
            if obs_tensor.dtype == th.float64:
                obs_tensor = obs_tensor.float()
            scores = self._scores(obs_tensor).double().cpu().numpy()
        if not self._discrete:
            return self._pick_components(scores, None if action_masks is None else np.asarray(action_masks))
        if action_masks is not None:
            legal = np.asarray(action_masks, dtype=bool)
            if not legal.any(axis=1).all():
                raise InvalidValueError(
                    f"{self}: the action mask of game {int(np.flatnonzero(~legal.any(axis=1))[0])} allows no action"
                )
            scores = np.where(legal, scores, -np.inf)
        if not self.deterministic:
            scores = scores + self._rng.gumbel(size=scores.shape)
        return self._start + np.argmax(scores, axis=1)

    def _pick_components(self, scores: np.ndarray, masks: np.ndarray | None) -> np.ndarray:
        """``(n, components)`` actions from ``(n, sum(nvec))`` logits: per component the best legal
        value, or a Gumbel-max sample from the legal ones."""
        segments, starts = self._segments or [], self._starts
        bounds = np.cumsum([0, *segments])
        if masks is not None:
            legal = np.asarray(masks, dtype=bool)
            if legal.shape != scores.shape:
                raise InvalidValueError(
                    f"{self}: expected masks of {scores.shape[1]} flags a game (components {segments} one after "
                    f"the other), got shape {legal.shape}"
                )
            for k in range(len(segments)):
                empty = ~legal[:, bounds[k] : bounds[k + 1]].any(axis=1)
                if empty.any():
                    raise InvalidValueError(
                        f"{self}: the action mask of game {int(np.flatnonzero(empty)[0])} allows no value of "
                        f"component {k}"
                    )
            scores = np.where(legal, scores, -np.inf)
        if not self.deterministic:
            scores = scores + self._rng.gumbel(size=scores.shape)
        chosen = [np.argmax(scores[:, bounds[k] : bounds[k + 1]], axis=1) for k in range(len(segments))]
        return np.stack(chosen, axis=1) + starts

    def _scores(self, obs_tensor: Any) -> Any:
        """Action logits (actor-critic policies) or Q-values (DQN) for a batch of one."""
        policy: Any = self.policy
        q_net: Any = getattr(policy, "q_net", None)
        if q_net is not None:
            return q_net(obs_tensor)
        if self._actor is not None:
            # The actor head alone: building a torch Distribution per move costs more than the net.
            extract, extractor, mlp, head = self._actor
            return head(mlp.forward_actor(extract(policy, obs_tensor, extractor)))
        return policy.get_distribution(obs_tensor).distribution.logits

    def __str__(self) -> str:
        return self.name


def as_sb3_sees(space: spaces.Space) -> spaces.Space:
    """``space`` as an SB3 policy trained on it records it: channels-last images transposed to
    channels-first (SB3's ``VecTransposeImage``; ``obs_to_tensor`` transposes the observations)."""
    from stable_baselines3.common.preprocessing import is_image_space, is_image_space_channels_first
    from stable_baselines3.common.vec_env import VecTransposeImage

    def view(part: spaces.Space) -> spaces.Space:
        if isinstance(part, spaces.Box) and is_image_space(part) and not is_image_space_channels_first(part):
            return VecTransposeImage.transpose_space(part)
        return part

    if isinstance(space, spaces.Dict):
        return spaces.Dict({key: view(part) for key, part in space.spaces.items()})
    return view(space)


def _actor_parts(policy: Any) -> tuple[Any, ...] | None:
    """``(extract_features, extractor, mlp_extractor, action_net)`` of an actor-critic policy.

    For a Discrete action space the actor-critic policies of SB3 and sb3-contrib compute
    their action logits as ``action_net(mlp_extractor.forward_actor(features))``; for a
    MultiDiscrete one the same layer gives every component's logits one after the other.
    """
    from stable_baselines3.common.policies import ActorCriticPolicy, BaseModel

    parts = [getattr(policy, name, None) for name in ("pi_features_extractor", "mlp_extractor", "action_net")]
    if not isinstance(policy, ActorCriticPolicy) and not _is_maskable(policy) or any(p is None for p in parts):
        return None
    return (BaseModel.extract_features, *parts)


def _is_maskable(policy: Any) -> bool:
    try:
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    except ImportError:  # pragma: no cover - require_sb3 checked it
        return False
    return isinstance(policy, MaskableActorCriticPolicy)


def load_sb3_agent(
    path: str | Path,
    algo: str = "maskable-ppo",
    interface: Interface | str | None = None,
    deterministic: bool = True,
    device: str = "cpu",
    seed: int | None = None,
    name: str | None = None,
    env: Any = None,
    team_size: int | None = None,
) -> Agent:
    """Load a saved SB3 model as an arena agent that plays on the raw env.

    Usable as a factory spec, so a tournament worker can build it from text:
    ``make_agent("arena.training:load_sb3_agent", path="out/model.zip")``.

    Args:
        path: the ``.zip`` written by ``model.save`` (or ``arena train``).
        algo: the algorithm that saved it: ``"maskable-ppo"``, ``"ppo"``, ``"a2c"``, ``"dqn"``.
        interface: the interface the model was trained behind (an instance, or
            a spec in arena's interface syntax, see :mod:`arena.specs.interfaces`); the agent
            is then an :class:`~arena.AgtItfWrapper` around the policy.
        deterministic: take the most likely legal action instead of sampling.
        device: the torch device to load onto.
        seed: seeds the agent's sampling.
        name: the name shown in tournaments (default: ``"<algo>:<file name>"``).
        env: the env the agent will play in (a tournament passes it); when given, the
            model's spaces are checked against it at once (first seat), so a model loaded
            without its interface fails here rather than in every game.
        team_size: for a model trained to control a whole side (``arena train --control
            team``): the side's seats; ``interface`` is then each member's stack, and the
            agent is a team agent with Tuple spaces (play it under a team name of ``env.teams``).

    An SB3 zip holds pickled Python objects, and loading one runs them: load only files you trust
    (a factory spec on the command line is the user's choice; :func:`arena.training.load_trained_agent`
    reads the pickle-free folders that ``arena train`` writes).

    Raises:
        ArenaError: the file does not exist, or lacks its spaces (one line naming it).
        SpaceMismatchError: ``env`` given and the model (behind ``interface``) does not fit it.
        UnknownNameError: an unknown ``algo``.
    """
    path = Path(path)
    if not path.exists() and not path.with_suffix(".zip").exists():
        raise ArenaError(f"load_sb3_agent: no saved model at {str(path)!r}")
    algo_class = algorithm_class(algo)  # an unknown algo is its own error (UnknownNameError is a KeyError)
    try:
        model = algo_class.load(str(path), device=device)
    except KeyError as err:  # SB3's KeyError for a zip without its spaces ("... were not given")
        missing = "its observation and action spaces" if "space" in str(err) else f"the entry {err}"
        raise ArenaError(
            f"load_sb3_agent: {str(path)!r} does not record {missing}, so Stable-Baselines3 cannot load it; "
            "for a folder that arena train wrote, load the folder (the spaces come from its env and interface)"
        ) from None
    agent = SB3Agent(model.policy, deterministic=deterministic, seed=seed, name=name or f"{algo}:{path.name}")
    if team_size is not None:
        from arena.training.team_control import team_stack

        return AgtItfWrapper(agent, team_stack(interface, team_size))
    stack = build_interface(interface)
    player = agent if stack is None else AgtItfWrapper(agent, stack)
    if env is not None:
        seat = env.possible_agents[0]
        player.setup(env.observation_space(seat), env.action_space(seat))
    return player
