"""The perceive and update modules, the stochastic and alive masks, and the NCA step that joins them."""

from __future__ import annotations

from typing import Literal

import torch
import torch.nn.functional as F
from torch import nn

from ..errors import UsageError

Padding = Literal["circular", "zeros"]

#: Sobel x (d/dx, x to the right) and identity, as in the Distill article (scaled by 1/8).
SOBEL_X = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]) / 8
IDENTITY = torch.tensor([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])


def _pad(x: torch.Tensor, padding: Padding, value: float = 0.0) -> torch.Tensor:
    """``(B, C, H, W)`` padded by one cell: wrapped (``circular``, a torus) or ``value`` (``zeros``)."""
    if padding == "circular":
        return F.pad(x, (1, 1, 1, 1), mode="circular")
    return F.pad(x, (1, 1, 1, 1), value=value)


def _check_padding(padding: str) -> Padding:
    if padding not in ("circular", "zeros"):
        raise UsageError(f"padding must be 'circular' or 'zeros', got {padding!r}")
    return padding  # type: ignore[return-value]


class Perceive(nn.Module):
    """Each cell's view of its 3x3 neighbourhood: ``(B, C, H, W) -> (B, 3C, H, W)``.

    Fixed (default): per channel, the identity, Sobel x and Sobel y, as a depthwise 3x3 convolution
    (output channels ``[c, dx c, dy c]`` per input channel ``c``). ``learnable=True`` starts from the
    same filters and trains them. ``padding``: ``"circular"`` (a torus) or ``"zeros"`` (dead outside).
    """

    def __init__(self, channels: int, *, padding: Padding = "zeros", learnable: bool = False):
        super().__init__()
        if channels < 1:
            raise UsageError(f"channels must be >= 1, got {channels}")
        self.channels = channels
        self.padding: Padding = _check_padding(padding)
        filters = torch.stack([IDENTITY, SOBEL_X, SOBEL_X.T])  # (3, 3, 3)
        weight = filters.repeat(channels, 1, 1)[:, None]  # (3C, 1, 3, 3), grouped per channel
        if learnable:
            self.weight = nn.Parameter(weight)
        else:
            self.register_buffer("weight", weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.conv2d(_pad(x, self.padding), self.weight.to(x.dtype), groups=self.channels)


class Update(nn.Module):
    """Per-cell update rule: 1x1 convolutions ``(B, in, H, W) -> (B, channels, H, W)``.

    ``in -> hidden`` (ReLU) ``-> channels``; the last layer has no bias and starts at zero, so a new
    model changes nothing ("do nothing" initialisation of the Distill article).
    """

    def __init__(self, in_channels: int, channels: int, hidden: int = 128):
        super().__init__()
        self.hidden = nn.Conv2d(in_channels, hidden, 1)
        self.out = nn.Conv2d(hidden, channels, 1, bias=False)
        nn.init.zeros_(self.out.weight)

    def forward(self, perceived: torch.Tensor) -> torch.Tensor:
        return self.out(F.relu(self.hidden(perceived)))


def fire_mask(x: torch.Tensor, fire_rate: float, generator: torch.Generator | None = None) -> torch.Tensor:
    """``(B, 1, H, W)`` float 0/1: the cells that update this step, each with probability ``fire_rate``."""
    shape = (x.shape[0], 1, x.shape[2], x.shape[3])
    return (torch.rand(shape, generator=generator, device=x.device, dtype=x.dtype) <= fire_rate).to(x.dtype)


def alive_mask(x: torch.Tensor, alpha: int = 3, threshold: float = 0.1, padding: Padding = "zeros") -> torch.Tensor:
    """``(B, 1, H, W)`` bool: a cell is alive when some cell of its 3x3 neighbourhood has
    ``x[:, alpha] > threshold`` (a 3x3 max-pool of the alpha channel)."""
    a = x[:, alpha : alpha + 1]
    padded = _pad(a, padding, value=float("-inf")) if padding == "zeros" else _pad(a, padding)
    return F.max_pool2d(padded, 3, stride=1) > threshold


class NCA(nn.Module):
    """A growing neural CA: ``channels`` channels (RGBA first), :class:`Perceive` + :class:`Update`,
    stochastic updates with ``fire_rate`` and the alive mask on channel ``alpha``.

    ``model(x, steps)`` advances ``(B, C, H, W)`` cells ``steps`` times (differentiably).
    """

    def __init__(self, channels: int = 16, hidden: int = 128, *, fire_rate: float = 0.5, alpha: int = 3,
                 padding: Padding = "zeros", learnable_perceive: bool = False):
        super().__init__()
        if not 0 < fire_rate <= 1:
            raise UsageError(f"fire_rate must lie in (0, 1], got {fire_rate}")
        if not 0 <= alpha < channels:
            raise UsageError(f"alpha channel {alpha} is not one of the {channels} channels")
        self.channels, self.fire_rate, self.alpha, self.padding = channels, fire_rate, alpha, padding
        self.perceive = Perceive(channels, padding=padding, learnable=learnable_perceive)
        self.update = Update(3 * channels, channels, hidden)

    def step(self, x: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
        """One stochastic step of ``(B, C, H, W)`` cells."""
        pre = alive_mask(x, self.alpha, padding=self.padding)
        dx = self.update(self.perceive(x)) * fire_mask(x, self.fire_rate, generator)
        x = x + dx
        post = alive_mask(x, self.alpha, padding=self.padding)
        return x * (pre & post).to(x.dtype)

    def forward(self, x: torch.Tensor, steps: int = 1, generator: torch.Generator | None = None) -> torch.Tensor:
        for _ in range(steps):
            x = self.step(x, generator)
        return x

    @staticmethod
    def seed(channels: int, height: int, width: int, batch: int = 1, alpha: int = 3) -> torch.Tensor:
        """``(batch, channels, H, W)`` zeros with one live cell in the centre (channels ``alpha..`` at 1)."""
        x = torch.zeros(batch, channels, height, width)
        x[:, alpha:, height // 2, width // 2] = 1.0
        return x
