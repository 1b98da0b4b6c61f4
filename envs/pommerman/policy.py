"""The network of Pommerman's team recipe: a small CNN over ``PommermanBatch``'s uint8 planes.

It lives in the package (not in a script) because a trained folder names the features
extractor's class by its import path (``{"$class": "envs.pommerman.policy:PlanesCNN"}`` in
``agent.json``): the folder loads wherever ``envs.pommerman.policy`` imports, and a loader
imports it without ``--trust`` because ``envs`` is a package that declares arena entry points. The recipe names it in its ``policy_kwargs`` as
``"envs.pommerman.policy:PlanesCNN"`` (a recipe is JSON); ``arena train`` imports the name.

This module imports torch and Stable-Baselines3 when it is imported (the ``train`` extra).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from arena.training.policy_agent import require_sb3

require_sb3()
import torch  # noqa: E402
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor  # noqa: E402

__all__ = ["PlanesCNN"]


class PlanesCNN(BaseFeaturesExtractor):
    """Two 3x3 convolutions of 32 over the planes (each scaled by its space's high), then a linear layer.

    Args:
        observation_space: ``Box(0, high, (planes, H, W), uint8)``, the batch's planes
            (:func:`envs.pommerman.batch.plane_space`).
        features_dim: the features handed to the policy and value heads.

    Example:
        >>> from envs.pommerman.batch import plane_space
        >>> cnn = PlanesCNN(plane_space("team"), features_dim=64)
        >>> cnn(torch.zeros(2, 22, 11, 11)).shape
        torch.Size([2, 64])
    """

    scale: torch.Tensor  # a buffer: saved with the weights, moved with the module

    def __init__(self, observation_space: spaces.Box, features_dim: int = 256) -> None:
        super().__init__(observation_space, features_dim)
        planes, height, width = observation_space.shape
        high = np.maximum(np.asarray(observation_space.high, dtype=np.float32).reshape(planes, -1).max(axis=1), 1)
        # Counts, lives and times reach 255: scaled to [0, 1] like the one-hot planes.
        self.register_buffer("scale", torch.as_tensor(1.0 / high).view(1, planes, 1, 1))
        self.net = torch.nn.Sequential(
            torch.nn.Conv2d(planes, 32, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Conv2d(32, 32, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Flatten(),
            torch.nn.Linear(32 * height * width, features_dim),
            torch.nn.ReLU(),
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations * self.scale)
