"""Neural cellular automata building blocks in PyTorch, CAX's perceive/update split.

Cells are ``(B, C, H, W)`` float tensors (channels first). One step of a growing NCA (Mordvintsev
et al., "Growing Neural Cellular Automata", Distill 2020)::

    pre = alive_mask(x)                        # 3x3 max-pool of alpha > 0.1
    dx = update(perceive(x))                   # identity + Sobel x/y, then 1x1 convolutions
    x = x + dx * fire_mask(x, fire_rate)       # stochastic cell updates
    x = x * (pre & alive_mask(x))              # cells dead before or after stay dead

:class:`Perceive`, :class:`Update`, :func:`fire_mask`, :func:`alive_mask`, :class:`NCA` (the
whole step, repeated) and :class:`SamplePool` (the training pool). torch is required.
"""

from .modules import NCA, Perceive, Update, alive_mask, fire_mask
from .pool import SamplePool

__all__ = ["NCA", "Perceive", "SamplePool", "Update", "alive_mask", "fire_mask"]
