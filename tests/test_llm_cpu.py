"""The llama.cpp build against the CPU: kernels the CPU lacks are named before any model runs."""

from __future__ import annotations

from core.llm.cpu import built_kernels, cpu_flags, missing

# what llama-cpp-python 0.3.36 printed for a build with AVX-VNNI (made on a Sapphire Rapids Xeon)
INFO = (
    "CPU : SSE3 = 1 | SSSE3 = 1 | AVX = 1 | AVX_VNNI = 1 | AVX2 = 1 | F16C = 1 | FMA = 1 | BMI2 = 1 | "
    "AVX512 = 1 | AVX512_VBMI = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | LLAMAFILE = 1 | OPENMP = 1 | REPACK = 1 | "
)
BASE = "fpu sse sse2 ssse3 avx avx2 fma f16c bmi2"
ZEN4 = (
    f"processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: {BASE} avx512f avx512vbmi avx512_vnni avx512_bf16\n"
)
XEON = f"flags\t\t: {BASE} avx_vnni avx512f avx512vbmi avx512_vnni avx512_bf16 amx_tile\n"


def test_the_kernels_a_build_reports_are_read_from_its_system_info() -> None:
    kernels = built_kernels(INFO)
    assert {"AVX_VNNI", "AVX512", "AVX512_VNNI", "AVX2"} <= kernels
    assert "CPU" not in kernels and "" not in kernels
    assert built_kernels("CPU : AVX = 0 | AVX2 = 1 |") == {"AVX2"}


def test_a_build_with_avx_vnni_is_refused_on_a_cpu_with_only_avx512_vnni() -> None:
    assert missing(INFO, ZEN4) == ["AVX_VNNI"]  # Zen 4: dies of SIGILL at its first matrix product
    assert missing(INFO, XEON) == []


def test_an_avx512_build_on_an_avx2_cpu_names_every_missing_kernel() -> None:
    lost = missing(INFO, f"flags\t: {BASE}\n")
    assert lost == ["AVX512", "AVX512_BF16", "AVX512_VBMI", "AVX512_VNNI", "AVX_VNNI"]


def test_without_a_flags_line_nothing_is_refused() -> None:
    assert cpu_flags("processor : 0\n") is None
    assert missing(INFO, "") == []
