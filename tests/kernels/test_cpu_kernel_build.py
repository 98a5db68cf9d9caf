"""The C++ kernels' build: named by its sources, never stalled by a build that was killed midway, and run ahead of
the first start by ``make install`` (``python -m kernels.cpu.build``), saying how far it is."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from kernels import cpu
from kernels.cpu.build import BuildProgress

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built() -> Path:
    if not cpu.load():
        pytest.skip("no C++ toolchain: the kernels are not built here")
    return cpu.build_directory()


def _load_in_child(extensions: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TORCH_EXTENSIONS_DIR": str(extensions)}
    return subprocess.run([sys.executable, "-c", "from kernels import cpu; print(cpu.load(), cpu.build_directory())"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)


def test_a_lock_left_by_a_killed_build_does_not_stall_the_next_start(built: Path, tmp_path: Path) -> None:
    # A copy of this machine's finished build (mtimes kept, so ninja finds nothing to do) under a fresh root, with the
    # marker torch's builder leaves when its process dies mid-build: torch alone waits for it to vanish, forever.
    extensions = tmp_path / "extensions"
    copy = extensions / built.name  # under TORCH_EXTENSIONS_DIR, torch's builder adds no python/device folder
    shutil.copytree(built, copy, symlinks=True)
    (copy / "lock").touch()
    done = _load_in_child(extensions)
    assert done.returncode == 0, done.stderr
    loaded, directory = done.stdout.split()
    assert loaded == "True"
    assert Path(directory) == copy
    assert not (copy / "lock").exists()


def test_the_build_is_named_by_its_sources(built: Path, tmp_path: Path) -> None:
    assert built.name == cpu.library_name()
    assert (built / f"{built.name}.so").is_file()
    # A checkout whose sources differ builds elsewhere instead of over this one.
    changed = tmp_path / "kernels" / "cpu"
    shutil.copytree(Path(cpu.__file__).parent, changed, ignore=shutil.ignore_patterns("__pycache__"))
    (changed / "argmax.cpp").write_text((changed / "argmax.cpp").read_text() + "\n// another version\n")
    other = _library_name_of(changed)
    assert other.startswith("warden_cpu_kernels_") and other != built.name
    # So does an identical checkout elsewhere: torch's build.ninja names the sources by absolute path, so sharing
    # one directory would make the two rebuild over each other on every alternation.
    same = tmp_path / "another-checkout" / "kernels" / "cpu"
    shutil.copytree(Path(cpu.__file__).parent, same, ignore=shutil.ignore_patterns("__pycache__"))
    assert _library_name_of(same) not in (built.name, other)
    assert _library_name_of(Path(cpu.__file__).parent) == built.name


def _library_name_of(sources: Path) -> str:
    """``library_name()`` of the kernels.cpu package at ``sources``, computed in a fresh interpreter."""
    script = ("import importlib.util, sys\n"
              f"spec = importlib.util.spec_from_file_location('kernels.cpu', {str(sources / '__init__.py')!r})\n"
              "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
              "print(module.library_name())\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_new_compile_cache_takes_the_build_this_machine_already_has(built: Path, tmp_path: Path) -> None:
    # A first start under a fresh compile cache (the fast profile's data directory, a new volume) copies the kernels
    # built here before instead of building them again for minutes: the library keeps its modification time.
    script = ("from engine.worker.compilation import use_compile_cache\nfrom kernels import cpu\n"
              f"use_compile_cache({str(tmp_path / 'cache')!r})\nprint(cpu.load(), cpu.build_directory())\n")
    env = {name: value for name, value in os.environ.items() if name != "TORCH_EXTENSIONS_DIR"}
    env["TORCH_EXTENSIONS_DIR"] = str(built.parent)  # where the test process built them
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr
    loaded, directory = done.stdout.split()
    assert loaded == "True"
    assert Path(directory) == tmp_path / "cache" / "extensions" / built.name
    library = f"{built.name}.so"
    assert (Path(directory) / library).stat().st_mtime == (built / library).stat().st_mtime
    assert not (Path(directory) / "lock").exists()


def test_build_progress_reports_each_source_compiled_once(tmp_path: Path) -> None:
    objects = [f"{Path(source).stem}.o" for source in cpu.SOURCES]
    stale = tmp_path / objects[-1]  # left by an earlier (or killed) build: not this build's progress
    stale.touch()
    os.utime(stale, (stale.stat().st_atime - 3600, stale.stat().st_mtime - 3600))
    lines: list[str] = []
    progress = BuildProgress(tmp_path, lines.append)
    progress.poll()
    assert lines == []  # nothing compiled yet
    (tmp_path / objects[0]).touch()
    (tmp_path / "unrelated.o").touch()  # not one of the build's sources
    progress.poll()
    progress.poll()
    (tmp_path / objects[1]).touch()
    (tmp_path / objects[2]).touch()
    progress.poll()
    assert [line.split(" (")[0] for line in lines] == [f"1 of {len(objects)} sources compiled",
                                                       f"3 of {len(objects)} sources compiled"]
    assert all(re.fullmatch(r".* \(\d+ s\)", line) for line in lines)


def test_the_install_step_finds_a_finished_build(built: Path, tmp_path: Path) -> None:
    extensions = tmp_path / "extensions"
    shutil.copytree(built, extensions / built.name, symlinks=True)
    done = _build_in_child(extensions)
    assert done.returncode == 0, done.stderr
    assert re.fullmatch(rf"warden: C\+\+ kernels: cache hit \({extensions / built.name}\) in \d+\.\d s",
                        done.stderr.strip().splitlines()[-1])


def test_the_install_step_announces_a_build_over_an_older_library(built: Path, tmp_path: Path) -> None:
    # A checkout whose sources are newer than the library it finds (a fresh clone over an old cache) makes ninja
    # build again: that build is announced like a first one. Only the library is made older here, so ninja relinks.
    extensions = tmp_path / "extensions"
    shutil.copytree(built, extensions / built.name, symlinks=True)
    library = extensions / built.name / f"{built.name}.so"
    newest = max(path.stat().st_mtime for path in Path(cpu.__file__).parent.glob("*.[ch]*"))
    os.utime(library, (newest - 60, newest - 60))
    done = _build_in_child(extensions)
    assert done.returncode == 0, done.stderr
    lines = [line.removeprefix("warden: C++ kernels: ") for line in done.stderr.splitlines()
             if line.startswith("warden: C++ kernels: ")]
    assert lines[0].startswith(f"building {len(cpu.SOURCES)} sources"), lines
    assert re.fullmatch(rf"built into {extensions / built.name} in \d+\.\d s", lines[-1]), lines


@pytest.mark.slow  # a whole build: minutes of compiling
def test_the_install_step_builds_into_an_empty_cache_and_says_how_far_it_is(built: Path, tmp_path: Path) -> None:
    extensions = tmp_path / "extensions"
    done = _build_in_child(extensions)
    assert done.returncode == 0, done.stderr
    lines = [line.removeprefix("warden: C++ kernels: ") for line in done.stderr.splitlines()
             if line.startswith("warden: C++ kernels: ")]
    total = len(cpu.SOURCES)
    assert re.fullmatch(rf"building {total} sources with \d+ parallel jobs \(est\. \d+ s .*\)", lines[0])
    counts = [int(line.split(" of ")[0]) for line in lines[1:-1]]
    assert counts and counts == sorted(set(counts)) and counts[-1] <= total, lines
    assert re.fullmatch(rf"built into {extensions / built.name} in \d+\.\d s", lines[-1])
    assert (extensions / built.name / f"{built.name}.so").is_file()


def _build_in_child(extensions: Path) -> subprocess.CompletedProcess[str]:
    """``make install``'s kernel step (``python -m kernels.cpu.build``) with ``extensions`` as torch's cache."""
    env = {**os.environ, "TORCH_EXTENSIONS_DIR": str(extensions)}
    return subprocess.run([sys.executable, "-m", "kernels.cpu.build"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=1200)
