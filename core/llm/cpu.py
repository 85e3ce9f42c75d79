"""Does the installed llama.cpp build run on this CPU? Its compiled kernels against /proc/cpuinfo.

Why: llama-cpp-python is compiled from source with kernels chosen at build
time, and pip caches the wheel by the source's address, not by the CPU it
was built for. A wheel built with AVX-VNNI on one machine (or one whose
flags were picked for the wrong CPU family: AMD Zen 4 has AVX512-VNNI but
not AVX-VNNI) dies of SIGILL at its first matrix product, taking the run
with it. Checking the build's own report (`llama_print_system_info`, no
model loaded) against the CPU's flags turns that into a clear refusal, and
`python -m core.llm.cpu` lets `make setup` rebuild when they disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path

# llama.cpp's name for a compiled kernel -> the /proc/cpuinfo flag it needs
KERNEL_FLAGS: dict[str, str] = {
    "AVX": "avx",
    "AVX2": "avx2",
    "AVX_VNNI": "avx_vnni",
    "FMA": "fma",
    "F16C": "f16c",
    "BMI2": "bmi2",
    "AVX512": "avx512f",
    "AVX512_VBMI": "avx512vbmi",
    "AVX512_VNNI": "avx512_vnni",
    "AVX512_BF16": "avx512_bf16",
    "AMX_INT8": "amx_int8",
}


def built_kernels(system_info: str) -> set[str]:
    """The kernels a llama.cpp system-info line says are compiled in ("AVX2 = 1 | ...")."""
    out = set()
    for part in system_info.replace("\n", "|").split("|"):
        name, _, value = part.rpartition(":")[2].partition("=")
        if value.strip() == "1":
            out.add(name.strip())
    return out


def cpu_flags(cpuinfo: str) -> set[str] | None:
    """The flags of the first CPU in a /proc/cpuinfo text (None: no flags line, e.g. not Linux/x86)."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return set(value.split())
    return None


def missing(system_info: str, cpuinfo: str) -> list[str]:
    """The compiled kernels this CPU cannot run (empty: it runs, or there is nothing to check against)."""
    flags = cpu_flags(cpuinfo)
    if flags is None:
        return []
    return sorted(k for k in built_kernels(system_info) if k in KERNEL_FLAGS and KERNEL_FLAGS[k] not in flags)


def installed_missing() -> list[str]:
    """`missing` for the installed llama-cpp-python on this machine."""
    import llama_cpp

    info = llama_cpp.llama_print_system_info().decode("utf-8", "ignore")
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
    except OSError:
        return []
    return missing(info, cpuinfo)


def main() -> int:
    """Exit 0 when the installed build runs here, 1 (naming the kernels) when it would die of SIGILL."""
    try:
        lost = installed_missing()
    except ImportError:
        print("llama-cpp-python is not installed", file=sys.stderr)
        return 0
    if lost:
        print(f"llama-cpp-python was built with kernels this CPU lacks: {', '.join(lost)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
