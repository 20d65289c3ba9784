"""Learn a cellular automaton's rule from data: a small conv net predicts the next generation.

    python -m tensorca.examples.learn_rule                       # B3/S23 (Conway's Life)
    python -m tensorca.examples.learn_rule B3/S23 B36/S23        # Life, then HighLife
    python -m tensorca.examples.learn_rule 345/2/4 --steps 4000  # a Generations rule (4 states)
    python -m tensorca.examples.learn_rule --quick               # seconds: scored on 32 unseen 64x64 grids

Training pairs ``(x_t, x_{t+1})`` come from :class:`tensorca.data.Trajectories` through a plain
``DataLoader``: random soups of density 0.1..0.9, advanced 0..32 generations so the net sees
young and settled grids alike. The net sees one 3x3 neighbourhood per cell, which is all a 3x3 rule
looks at: one-hot states -> 3x3 conv (circular padding, the torus) -> ReLU -> 1x1 conv -> ReLU ->
1x1 conv -> one logit per state. It is trained until every cell of a held-out set of larger grids
(a different seed, never seen in training) is predicted exactly at ``--patience`` checks in a row,
then scored on a bigger held-out set. Seeds are fixed, so a run is reproducible.

The last line per rule ends ``<percent> of cells, <percent> of grids exactly right``; the exit
status is 0 when every rule's cells were all predicted right (the rule was learned), 1 otherwise.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

from tensorca.examples import require_torch, run_main

require_torch("learn_rule", as_script=__name__ == "__main__")

import torch  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import DataLoader  # noqa: E402

import tensorca  # noqa: E402
from tensorca.data import Trajectories  # noqa: E402

console = Console()


class RuleNet(nn.Module):
    """``(B, H, W)`` uint8 states -> ``(B, n_states, H, W)`` logits of the next state."""

    def __init__(self, n_states: int, hidden: int = 32) -> None:
        super().__init__()
        self.n_states = n_states
        self.body = nn.Sequential(
            nn.Conv2d(n_states, hidden, 3, padding=1, padding_mode="circular"),
            nn.ReLU(),
            nn.Conv2d(hidden, hidden, 1),
            nn.ReLU(),
            nn.Conv2d(hidden, n_states, 1),
        )

    def forward(self, cells: torch.Tensor) -> torch.Tensor:
        onehot = nn.functional.one_hot(cells.long(), self.n_states).permute(0, 3, 1, 2).float()
        return self.body(onehot)


@torch.no_grad()
def accuracy(model: RuleNet, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float]:
    """(fraction of cells right, fraction of grids entirely right)."""
    model.eval()
    right = torch.cat([(model(xb).argmax(1) == yb) for xb, yb in zip(x.split(64), y.split(64), strict=True)])
    model.train()
    return float(right.float().mean()), float(right.flatten(1).all(1).float().mean())


def learn(rule: str, args: argparse.Namespace) -> dict[str, Any]:
    """Train a :class:`RuleNet` on ``rule`` as ``args`` say; its score on the final held-out set."""
    n_states = tensorca.parse_rule(rule).n_states
    torch.manual_seed(args.seed)
    train = Trajectories(rule, (args.size, args.size), generations=1, length=args.steps * args.batch_size,
                         density=(0.1, 0.9), warmup=(0, 32), seed=args.seed)
    # Held out: another seed, larger grids (the net is a convolution, so any size works).
    check = Trajectories(rule, (64, 64), generations=1, length=64, density=(0.1, 0.9), warmup=(0, 32),
                         seed=10_000 + args.seed)
    final = Trajectories(rule, (args.final_size, args.final_size), generations=1, length=args.final_grids,
                         density=(0.1, 0.9), warmup=(0, 64), seed=20_000 + args.seed)
    check_x, check_y = check.batch(range(len(check)))
    model = RuleNet(n_states, args.hidden)
    optimiser = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)
    loader = DataLoader(train, batch_size=args.batch_size, num_workers=args.workers)
    began = time.perf_counter()
    step, cell_acc, solved_at, perfect = 0, 0.0, None, 0
    with Progress(TextColumn(f"[bold]{rule}[/]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("loss {task.fields[loss]:.4f}  held-out cells {task.fields[acc]:.4%}"),
                  console=console) as bar:
        task = bar.add_task("train", total=args.steps, loss=float("nan"), acc=0.0)
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y.long())
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            scheduler.step()
            step += 1
            if step % args.check_every == 0 or step == args.steps:
                cell_acc, grid_acc = accuracy(model, check_x, check_y)
                bar.update(task, completed=step, loss=loss.item(), acc=cell_acc)
                perfect = perfect + 1 if cell_acc == 1.0 else 0
                solved_at = solved_at if perfect else None
                if perfect == 1:
                    solved_at = step
                if perfect >= args.patience:
                    break
            elif step % 10 == 0:
                bar.update(task, completed=step, loss=loss.item())
    train_seconds = time.perf_counter() - began
    final_x, final_y = final.batch(range(len(final)))
    cells, grids = accuracy(model, final_x, final_y)
    return {"rule": tensorca.parse_rule(rule).canonical(), "steps": step, "solved_at": solved_at,
            "seconds": train_seconds, "cells": cells, "grids": grids, "final_grids": len(final)}


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), learn each rule; 0 if every rule was learned exactly."""
    parser = argparse.ArgumentParser(prog="python -m tensorca.examples.learn_rule", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rules", nargs="*", default=["B3/S23"], help="rules to learn (default B3/S23)")
    parser.add_argument("--steps", type=int, default=2000, help="most training steps per rule (default 2000)")
    parser.add_argument("--batch-size", type=int, default=32, help="grids per step (default 32)")
    parser.add_argument("--size", type=int, default=32, help="training grid side (default 32)")
    parser.add_argument("--hidden", type=int, default=32, help="hidden channels (default 32)")
    parser.add_argument("--lr", type=float, default=0.01, help="peak learning rate (default 0.01)")
    parser.add_argument("--check-every", type=int, default=50, help="held-out check interval in steps (default 50)")
    parser.add_argument("--patience", type=int, default=3,
                        help="stop after this many perfect held-out checks in a row (default 3)")
    parser.add_argument("--workers", type=int, default=0, help="DataLoader workers (default 0)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    parser.add_argument("--seed", type=int, default=0, help="seed for data and weights (default 0)")
    parser.add_argument("--final-grids", type=int, default=None,
                        help="unseen grids in the final score (default 256, 32 with --quick)")
    parser.add_argument("--final-size", type=int, default=None,
                        help="their side (default 128, 64 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="score on 32 unseen 64x64 grids, check every 25 steps: seconds (a smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.check_every = min(args.check_every, 25)
    args.final_grids = args.final_grids or (32 if args.quick else 256)
    args.final_size = args.final_size or (64 if args.quick else 128)
    if args.threads:
        torch.set_num_threads(args.threads)
    ok = True
    for rule in args.rules:
        r = learn(rule, args)
        solved = (f"held-out check perfect from step {r['solved_at']}, stopped at {r['steps']}" if r["solved_at"]
                  else f"not perfect after {r['steps']} steps")
        console.print(
            f"{r['rule']}: {solved} ({r['seconds']:.1f} s training); on {r['final_grids']} unseen "
            f"{args.final_size}x{args.final_size} grids: "
            f"{r['cells']:.4%} of cells, {r['grids']:.1%} of grids exactly right",
            highlight=False, soft_wrap=True,
        )
        ok = ok and r["cells"] == 1.0
    return 0 if ok else 1


if __name__ == "__main__":
    run_main("learn_rule", main)
