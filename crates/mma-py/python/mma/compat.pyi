# Type stub of `mma.compat` (mmasim 2.1.1's public API; docstrings in compat.py).
from types import ModuleType
from typing import Any, Optional

class MMAOperation:
    arch: str
    shape_and_type: str
    m: int
    n: int
    k: int
    a_type: Any
    b_type: Any
    c_type: Any
    d_type: Any
    kind: Optional[str]
    def __init__(self, arch: str, shape_and_type: str) -> None: ...
    def dpa(self, a: Any, b: Any, c: Any) -> Any: ...
    def __call__(self, A: Any, B: Any, C: Any) -> Any: ...

class MMABlockScaleOperation:
    arch: str
    shape_and_type: str
    m: int
    n: int
    k: int
    a_type: Any
    b_type: Any
    c_type: Any
    d_type: Any
    s_type: Any
    block_size: int
    packing: int
    kind: Optional[str]
    def __init__(self, arch: str, shape_and_type: str) -> None: ...
    def dpa(self, a: Any, b: Any, c: Any, alpha: Any, beta: Any) -> Any: ...
    def __call__(self, A: Any, B: Any, C: Any, alpha: Any, beta: Any) -> Any: ...

class MMA(MMAOperation): ...
class WGMMA(MMAOperation): ...
class TCGen05MMA(MMAOperation): ...
class MMABlockScale(MMABlockScaleOperation): ...
class TCGen05MMABlockScale(MMABlockScaleOperation): ...

class MFMA(MMAOperation):
    suffix: str
    def __init__(self, arch: str, suffix: str) -> None: ...

nv_ptx: ModuleType
amd: ModuleType
