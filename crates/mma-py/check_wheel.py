"""Checks a built wheel of the package before anyone installs it (`.ci/run` calls it).

    python3 crates/mma-py/check_wheel.py DIR ARCH     # ARCH: x86_64 or aarch64

Exactly one wheel for ARCH in DIR, and in it:

- the tags: `cp39-abi3` (one wheel for every CPython from 3.9, the stable ABI) and a
  manylinux2014 platform tag for ARCH (`manylinux_2_17_ARCH`, the PEP 600 spelling of it);
- the extension `mma/_mma.abi3.so` is an ELF shared object for ARCH (e_machine 62 for x86-64,
  183 for AArch64, as the ELF specification numbers them), and the glibc symbol versions it needs
  are at most GLIBC_2.17, which is what the manylinux2014 tag promises (PEP 599);
- the Python half (`mma/__init__.py` and the modules the package README names) and metadata that
  name the distribution `mma-models` and require numpy.

Standard library only: it runs where nothing else is installed. Exits 1, naming each problem.
"""

import re
import struct
import sys
import zipfile
from pathlib import Path

MACHINE = {"x86_64": 62, "aarch64": 183}
PYTHON_FILES = ["mma/__init__.py", "mma/_threads.py", "mma/library.py", "mma/torch.py",
                "mma/_torch_guard.py", "mma/dask.py", "mma/compat.py"]
MAX_GLIBC = (2, 17)


def elf_machine(data: bytes) -> tuple[int, int, int]:
    """(class, data encoding, e_machine) of an ELF image; raises ValueError if it is not one."""
    if data[:4] != b"\x7fELF":
        raise ValueError("not an ELF file")
    ei_class, ei_data = data[4], data[5]
    endian = "<" if ei_data == 1 else ">"
    (e_type, e_machine) = struct.unpack_from(endian + "HH", data, 16)
    if e_type != 3:
        raise ValueError(f"ELF type {e_type}, not a shared object (3)")
    return ei_class, ei_data, e_machine


def glibc_versions(data: bytes) -> list[tuple[int, ...]]:
    """The GLIBC_x.y[.z] version names in the image (its dynamic string table holds every
    version it needs)."""
    names = set(re.findall(rb"GLIBC_(\d+(?:\.\d+)+)\x00", data))
    return sorted(tuple(int(p) for p in n.decode().split(".")) for n in names)


def check(wheel: Path, arch: str) -> list[str]:
    problems = []
    # name-version-python-abi-platform.whl (PEP 427); platform tags joined by dots.
    parts = wheel.name[: -len(".whl")].split("-")
    if len(parts) != 5:
        return [f"{wheel.name}: not name-version-python-abi-platform"]
    name, _version, py, abi, plat = parts
    if name != "mma_models":
        problems.append(f"{wheel.name}: distribution {name!r}, expected mma_models")
    if (py, abi) != ("cp39", "abi3"):
        problems.append(f"{wheel.name}: tags {py}-{abi}, expected cp39-abi3")
    platforms = plat.split(".")
    wanted = {f"manylinux_2_17_{arch}", f"manylinux2014_{arch}"}
    if not wanted & set(platforms):
        problems.append(f"{wheel.name}: platform {plat}, expected one of {sorted(wanted)}")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        for f in PYTHON_FILES:
            if f not in names:
                problems.append(f"{wheel.name}: {f} missing")
        so = "mma/_mma.abi3.so"
        if so not in names:
            problems.append(f"{wheel.name}: {so} missing")
        else:
            data = z.read(so)
            try:
                cls, enc, machine = elf_machine(data)
                if (cls, enc) != (2, 1):
                    problems.append(f"{so}: ELF class {cls}/encoding {enc}, expected 64-bit little-endian")
                if machine != MACHINE[arch]:
                    problems.append(f"{so}: e_machine {machine}, expected {MACHINE[arch]} ({arch})")
            except ValueError as e:
                problems.append(f"{so}: {e}")
            versions = glibc_versions(data)
            if not versions:
                problems.append(f"{so}: no GLIBC symbol versions found (not linked against glibc?)")
            elif versions[-1] > MAX_GLIBC:
                v = ".".join(map(str, versions[-1]))
                problems.append(f"{so}: needs GLIBC_{v}, more than manylinux2014's 2.17")
        meta = [n for n in names if n.endswith(".dist-info/METADATA")]
        if len(meta) != 1:
            problems.append(f"{wheel.name}: {len(meta)} METADATA files")
        else:
            text = z.read(meta[0]).decode()
            if "\nName: mma-models\n" not in text:
                problems.append(f"{meta[0]}: Name is not mma-models")
            if not re.search(r"^Requires-Dist: numpy", text, re.M):
                problems.append(f"{meta[0]}: does not require numpy")
    return problems


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[2] not in MACHINE:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    folder, arch = Path(sys.argv[1]), sys.argv[2]
    wheels = sorted(folder.glob(f"*{arch}*.whl"))
    if len(wheels) != 1:
        print(f"error: {folder}: {len(wheels)} wheels for {arch}, expected 1: {[w.name for w in wheels]}", file=sys.stderr)
        return 1
    problems = check(wheels[0], arch)
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    if problems:
        return 1
    data = zipfile.ZipFile(wheels[0]).read("mma/_mma.abi3.so")
    newest = ".".join(map(str, glibc_versions(data)[-1]))
    print(f"{wheels[0].name}: tags, {arch} ELF, glibc <= {newest}, package files and metadata as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
