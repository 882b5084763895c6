"""The README's Python examples, run as written (every ```python block of the root README)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[3] / "README.md"


def python_blocks(md: str):
    blocks, cur = [], None
    for line in md.splitlines():
        if cur is None and line.strip().startswith("```python"):
            cur = []
        elif cur is not None and line.strip().startswith("```"):
            blocks.append("\n".join(cur) + "\n")
            cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


BLOCKS = python_blocks(README.read_text())


def test_the_readme_has_a_numpy_and_a_torch_example():
    assert len(BLOCKS) == 2
    assert "numpy" in BLOCKS[0] and "torch" in BLOCKS[1]


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_readme_block_runs(i):
    block = BLOCKS[i]
    if "import mma, torch" in block and importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: the README's PyTorch example was not run")
    exec(compile(block, f"README.md python block {i}", "exec"), {})
