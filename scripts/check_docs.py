"""Run every code block of the README (and of the docs' user guide) against an installed wheel.

Usage::

    python scripts/check_docs.py [--venv DIR] [--extras fast,torch,notebook,dask,render] [FILE.md ...]
    python scripts/check_docs.py --dist-only

Builds an sdist of this checkout and, from the sdist, a wheel (``python -m build``), and checks the
wheel: it holds every file git tracks under ``src/tensorca`` (the modules and the package data:
patterns, rule files, Lenia's creatures, the viewer's assets) and the licence, and nothing of
``tests/`` (a wheel built from the sdist proves the sdist complete too; ``--dist-only`` stops
there). Then makes a fresh virtual environment in a temporary directory outside the checkout (or
reuses ``--venv``, skipping the build), installs the wheel there, not
editable, with the extras (torch's CPU build from ``TORCH``, default ``torch==2.13.0``, installed
first so no CUDA build is fetched), and runs each ````python`` block with that environment's Python
and each ````console`` block line by line as shell commands (``tensorca`` on the PATH), every block
in its own process, from an empty temporary directory. A block is skipped when a comment line
containing "skip" (and the reason) stands at most two lines above its opening fence, e.g.
``<!-- skip: needs a CUDA device -->``; skipped blocks are listed with their reasons. A failure
names the file, the block's line and the output's last lines; the exit status is the number of
failed blocks and distribution problems (0: all passed). ````sh`` / ````bash`` blocks are set-up
commands (``make``, ``pip``) and are not run.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Blocks that run: the language after the opening fence.
RUN = ("python", "console")
#: How long one block may take.
BLOCK_TIMEOUT_S = 600


@dataclasses.dataclass(frozen=True)
class Block:
    """One fenced block: its file, the line of its opening fence, language and text."""

    path: Path
    line: int
    language: str
    text: str
    skip: str = ""  # the reason, when marked


def blocks(path: Path) -> list[Block]:
    """The ````python`` and ````console`` blocks of ``path``, with their skip reasons."""
    lines = path.read_text().splitlines()
    found, i = [], 0
    while i < len(lines):
        match = re.match(r"^```(\w+)\s*$", lines[i])
        if not match:
            i += 1
            continue
        start, language = i, match.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        if language in RUN:
            above = [line for line in lines[max(0, start - 2):start] if "skip" in line.lower()]
            reason = re.sub(r"^\s*(<!--|#)\s*|\s*-->\s*$", "", above[-1]) if above else ""
            found.append(Block(path, start + 1, language, "\n".join(lines[start + 1:j]), reason))
        i = j + 1
    return found


def commands(block: Block) -> list[str]:
    """A console block's commands: lines starting with ``$ `` (or every non-comment line when none do)."""
    lines = [line for line in block.text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    prompted = [line[2:] for line in lines if line.startswith("$ ")]
    return prompted or lines


def build_dist(out: Path) -> Path:
    """Build an sdist of this checkout and a wheel from it into ``out`` (``python -m build``); the wheel."""
    subprocess.run([sys.executable, "-m", "build", "--quiet", "--outdir", str(out), str(ROOT)], check=True,
                   stdout=subprocess.DEVNULL)
    if not list(out.glob("tensorca-*.tar.gz")):
        raise RuntimeError(f"python -m build made no sdist in {out}")
    return next(out.glob("tensorca-*.whl"))


def package_files() -> set[str]:
    """The files git tracks under ``src/tensorca`` (else every file there but caches), as paths in a wheel."""
    try:
        listed = subprocess.run(["git", "ls-files", "src/tensorca"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        listed = [path.relative_to(ROOT).as_posix() for path in (ROOT / "src" / "tensorca").rglob("*")
                  if path.is_file() and "__pycache__" not in path.parts]
    return {name.removeprefix("src/") for name in listed if (ROOT / name).is_file()}


def check_wheel(wheel: Path) -> list[str]:
    """What is wrong with ``wheel``: a package file missing, a file of ``tests/`` in it, no licence."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    problems = [f"{wheel.name} lacks {name}" for name in sorted(package_files() - names)]
    problems += [f"{wheel.name} holds a test file: {name}" for name in sorted(names)
                 if name.startswith("tests/") or "/tests/" in name]
    if not any(name.endswith(".dist-info/licenses/LICENSE") for name in names):
        problems.append(f"{wheel.name} holds no LICENSE")
    if platform.machine().lower() in ("x86_64", "amd64") and "tensorca/_kernels/manifest.json" not in names:
        problems.append(f"{wheel.name} ships no precompiled first-run kernels (tensorca/_kernels: tensorca.prebuild)")
    return problems


def make_venv(directory: Path, wheel: Path, extras: str, torch: str) -> Path:
    """A fresh venv in ``directory`` with ``wheel`` and ``extras`` installed; its python."""
    venv = directory / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    if "torch" in extras.split(","):
        subprocess.run([str(python), "-m", "pip", "install", "-qq", torch], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-qq", f"{wheel}[{extras}]"], check=True)
    return python


def run_block(block: Block, python: Path, cwd: Path, env: dict[str, str]) -> tuple[bool, str]:
    """Run ``block``; ``(ok, output's tail)``."""
    if block.language == "python":
        runs = [[str(python), "-c", block.text]]
    else:
        runs = [["bash", "-c", command] for command in commands(block)]
    for argv in runs:
        try:
            done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=BLOCK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return False, f"timed out after {BLOCK_TIMEOUT_S} s: {shlex.join(argv)[:200]}"
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-12:])
            return False, f"exit {done.returncode}: {shlex.join(argv)[:200]}\n{tail}"
    return True, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="markdown files (default: README.md and docs/guide/*.md)")
    parser.add_argument("--venv", type=Path, help="an existing venv's directory to use instead of a fresh one")
    parser.add_argument("--extras", default="fast,torch,notebook,dask,render")
    parser.add_argument("--dist-only", action="store_true", help="build and check the sdist and wheel, run no block")
    args = parser.parse_args()
    guide = sorted((ROOT / "docs" / "guide").glob("*.md"))
    files = [path.resolve() for path in args.files] or [ROOT / "README.md", ROOT / "docs" / "quickstart.md", *guide]
    found = [block for path in files for block in blocks(path)]
    failed, skipped, passed = [], [], 0
    with tempfile.TemporaryDirectory(prefix="tensorca-docs-") as tmp:
        tmp_path = Path(tmp)
        if args.venv and not args.dist_only:
            python = args.venv / "bin" / "python"
        else:
            began = time.perf_counter()
            wheel = build_dist(tmp_path / "dist")
            failed += [f"dist: {problem}" for problem in check_wheel(wheel)]
            print(f"{'FAIL' if failed else 'ok  '} built and checked the sdist and {wheel.name} "
                  f"({time.perf_counter() - began:.0f} s)", flush=True)
            if args.dist_only:
                for line in failed:
                    print(f"FAILED {line}")
                return min(len(failed), 100)
            began = time.perf_counter()
            python = make_venv(tmp_path, wheel, args.extras, os.environ.get("TORCH", "torch==2.13.0"))
            print(f"installed the wheel with [{args.extras}] in {time.perf_counter() - began:.0f} s", flush=True)
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        env["PATH"] = f"{python.parent}{os.pathsep}{env.get('PATH', '')}"
        env["TENSORCA_CACHE_DIR"] = str(tmp_path / "cache")  # one cache for every block of the run
        env.setdefault("MPLBACKEND", "Agg")
        for block in found:
            where = f"{block.path.relative_to(ROOT)}:{block.line}"
            if block.skip:
                skipped.append(f"{where}: {block.skip}")
                continue
            cwd = Path(tempfile.mkdtemp(dir=tmp_path))
            began = time.perf_counter()
            ok, why = run_block(block, python, cwd, env)
            print(f"{'ok  ' if ok else 'FAIL'} {where} ({block.language}, {time.perf_counter() - began:.1f} s)",
                  flush=True)
            if ok:
                passed += 1
            else:
                failed.append(f"{where} ({block.language}): {why}")
    for line in skipped:
        print(f"skipped {line}")
    for line in failed:
        print(f"\nFAILED {line}")
    print(f"\ndocs: {passed} passed, {len(failed)} failed, {len(skipped)} skipped")
    return min(len(failed), 100)


if __name__ == "__main__":
    sys.exit(main())
