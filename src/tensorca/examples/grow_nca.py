"""Grow a neural cellular automaton into a target image: the Distill "Growing Neural Cellular Automata" recipe.

Mordvintsev, Randazzo, Niklasson and Levin, Distill 2020: 16 channels (RGBA + 12 hidden), a fixed
identity + Sobel perception, 128 hidden units, stochastic updates (fire rate 0.5), the alive mask,
a pool of 1024 states, batches of 8 run 64-96 steps, Adam at 2e-3 (2e-4 after 2000 iterations),
each parameter's gradient normalised; ``--regenerate`` damages the best states of each batch.

The target is drawn here with Pillow (a smiling face; no downloads), premultiplied RGBA in [0, 1].

    python -m tensorca.examples.grow_nca --quick         # seconds: an 8x8 target, 60 iterations (a smoke test)
    python -m tensorca.examples.grow_nca --small         # CPU, about 90 s: a 12x12 target, 500 iterations
    python -m tensorca.examples.grow_nca --device cuda   # the full recipe: 40x40 target, 8000 iterations
    python -m tensorca.examples.grow_nca --small --picture grown.gif   # also save the growth after training

The last line printed is ``loss <value> (first <value>)``: the mean squared error of RGBA against the
target at the last training iteration, then at the first.
``--picture out.png`` saves the pattern grown from the seed after training (RGBA over white, each
cell a block of pixels); ``--picture out.gif`` saves every step of that growth.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from tensorca.examples import require_torch, run_main

require_torch("grow_nca", as_script=__name__ == "__main__")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from tensorca.nn import NCA, SamplePool  # noqa: E402

CHANNELS = 16


def draw_target(size: int, pad: int) -> torch.Tensor:
    """``(4, size + 2 pad, size + 2 pad)`` premultiplied RGBA: a yellow face with eyes and a smile."""
    scale = 8  # draw large, then downsample: soft edges
    big = size * scale
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.ellipse((0, 0, big - 1, big - 1), fill=(250, 200, 40, 255))
    eye = big // 8
    for cx in (big * 0.33, big * 0.67):
        draw.ellipse((cx - eye / 2, big * 0.3, cx + eye / 2, big * 0.3 + eye * 1.3), fill=(60, 30, 10, 255))
    draw.arc((big * 0.22, big * 0.3, big * 0.78, big * 0.8), 20, 160, fill=(170, 30, 30, 255), width=big // 12)
    rgba = np.asarray(image.resize((size, size), Image.LANCZOS), dtype=np.float32) / 255.0
    rgba[..., :3] *= rgba[..., 3:]  # premultiplied alpha
    target = torch.from_numpy(rgba).permute(2, 0, 1)
    return torch.nn.functional.pad(target, (pad, pad, pad, pad))


def damage(x: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Each state with a random disc (radius 0.1-0.4 of the grid) erased."""
    _, _, height, width = x.shape
    yy = torch.linspace(-1, 1, height)[:, None]
    xx = torch.linspace(-1, 1, width)[None, :]
    out = x.clone()
    for i in range(x.shape[0]):
        centre = torch.rand(2, generator=generator) - 0.5
        radius = 0.1 + 0.3 * float(torch.rand(1, generator=generator))
        hole = ((yy - centre[0]) ** 2 + (xx - centre[1]) ** 2) < radius**2
        out[i, :, hole] = 0
    return out


def over_white(x: torch.Tensor) -> np.ndarray:
    """``(H, W, 3)`` uint8 RGB of the first state of ``(B, C, H, W)``: premultiplied RGBA composited over white."""
    rgba = x[0, :4].detach().clamp(0, 1).cpu()
    rgb = (rgba[:3] + 1 - rgba[3:4]).clamp(0, 1)
    return (rgb.permute(1, 2, 0).numpy() * 255).round().astype(np.uint8)


def save_picture(model: NCA, path: Path, steps: int, height: int, width: int, seed: int) -> None:
    """Grow the seed ``steps`` steps; write the last state (``.png``) or every step (``.gif``), zoomed to ~240 px."""
    zoom = max(1, 240 // max(height, width))
    gen = torch.Generator().manual_seed(seed)
    device = next(model.parameters()).device
    x = NCA.seed(CHANNELS, height, width).to(device)
    frames = [over_white(x)]
    with torch.no_grad():
        for _ in range(steps):
            x = model(x, 1, generator=gen if device.type == "cpu" else None)
            frames.append(over_white(x))
    images = [Image.fromarray(f).resize((width * zoom, height * zoom), Image.NEAREST) for f in frames]
    if path.suffix.lower() == ".gif":
        paletted = [im.quantize(colors=64, method=Image.Quantize.MEDIANCUT) for im in images]
        paletted[0].save(path, save_all=True, append_images=paletted[1:] + [paletted[-1]] * 20, duration=60,
                         loop=0, optimize=True)
    else:
        images[-1].save(path, optimize=True)
    print(f"picture: {steps} steps from the seed -> {path}", flush=True)


#: ``--quick`` (seconds), ``--small`` (about 90 s on two CPU cores) and the full recipe (for a GPU).
PRESETS: dict[str, dict[str, int]] = {
    "quick": dict(size=8, pad=4, hidden=32, pool=32, batch=4, min_steps=8, max_steps=12, iterations=60,
                  decay_at=50, report=10),
    "small": dict(size=12, pad=6, hidden=128, pool=256, batch=8, min_steps=24, max_steps=32, iterations=500,
                  decay_at=400, report=50),
    "full": dict(size=40, pad=16, hidden=128, pool=1024, batch=8, min_steps=64, max_steps=96, iterations=8000,
                 decay_at=2000, report=100),
}


def train(args: argparse.Namespace) -> tuple[float, float, NCA, int, int]:
    """Train on ``args``' preset; ``(first loss, last loss, model, height, width)``."""
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    device = torch.device(args.device)
    target = draw_target(args.size, args.pad).to(device)
    height, width = target.shape[1:]
    model = NCA(CHANNELS, args.hidden, fire_rate=0.5).to(device)
    seed_state = NCA.seed(CHANNELS, height, width)[0]
    pool = SamplePool(seed_state, args.pool)
    optimiser = torch.optim.Adam(model.parameters(), lr=2e-3)
    schedule = torch.optim.lr_scheduler.MultiStepLR(optimiser, milestones=[args.decay_at], gamma=0.1)
    first, loss_value, start = float("nan"), float("nan"), time.time()
    for iteration in range(1, args.iterations + 1):
        indices, x = pool.sample(args.batch, gen)
        per_sample = ((x[:, :4] - target.cpu()) ** 2).mean(dim=(1, 2, 3))
        order = per_sample.argsort(descending=True)
        indices, x = indices[order], x[order]
        x[0] = seed_state  # the worst state restarts from the seed
        if args.regenerate:
            x[-3:] = damage(x[-3:], gen)
        steps = int(torch.randint(args.min_steps, args.max_steps + 1, (1,), generator=gen))
        out = model(x.to(device), steps)
        loss = ((out[:, :4] - target) ** 2).mean()
        optimiser.zero_grad()
        loss.backward()
        with torch.no_grad():  # per-parameter gradient normalisation
            for p in model.parameters():
                if p.grad is not None:
                    p.grad /= p.grad.norm() + 1e-8
        optimiser.step()
        schedule.step()
        pool.commit(indices, out.detach().cpu())
        loss_value = float(loss.detach())
        if iteration == 1:
            first = loss_value
        if iteration % args.report == 0:
            print(f"iteration {iteration:5d}  loss {loss_value:.5f}  {time.time() - start:6.1f} s", flush=True)
    return first, loss_value, model, height, width


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), train, print the losses; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tensorca.examples.grow_nca", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="an 8x8 target, 60 iterations: seconds (a smoke test)")
    size.add_argument("--small", action="store_true", help="a 12x12 target, 500 iterations: about 90 s on a CPU")
    parser.add_argument("--regenerate", action="store_true", help="damage the best states (regenerating variant)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--iterations", type=int, default=None)
    parser.add_argument("--threads", type=int, default=1,
                        help="torch CPU threads (default 1: small convolutions lose more to thread contention "
                             "than they gain on a shared machine)")
    parser.add_argument("--picture", type=Path, default=None,
                        help="after training, save the pattern grown from the seed: .png (last state) or .gif")
    args = parser.parse_args(argv)
    if args.picture is not None and args.picture.suffix.lower() not in (".png", ".gif"):
        parser.error(f"--picture must end in .png or .gif, got {args.picture}")
    preset = PRESETS["quick" if args.quick else "small" if args.small else "full"]
    for key, value in preset.items():
        if getattr(args, key, None) is None:
            setattr(args, key, value)
    torch.set_num_threads(max(1, args.threads))
    first, final, model, height, width = train(args)
    if args.picture is not None:
        save_picture(model, args.picture, 2 * args.max_steps, height, width, args.seed)
    print(f"loss {final:.4f} (first {first:.4f})")
    return 0


if __name__ == "__main__":
    run_main("grow_nca", main)
