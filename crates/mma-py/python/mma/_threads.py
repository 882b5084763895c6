"""The ``threads=`` argument every call of the package takes: a leaf module, so that
``mma``, ``mma.library``, ``mma.torch`` and ``mma.dask`` import it without importing each
other."""

from __future__ import annotations

from typing import Optional

import numpy as np

#: The most threads a call may ask for (more would spend the call building the pool).
MAX_THREADS = 1024


def threads_arg(threads: Optional[int]) -> int:
    """``threads`` as the engine takes it (None: 0, all cores), or a TypeError/ValueError
    naming the argument."""
    if threads is None:
        return 0
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)):
        raise TypeError(f"threads: expected None or a positive int, got {threads!r}")
    if threads < 1 or threads > MAX_THREADS:
        raise ValueError(f"threads: expected None or 1 to {MAX_THREADS}, got {threads}")
    return int(threads)
