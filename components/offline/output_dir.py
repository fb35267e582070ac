"""Writing a set of files into a folder that belongs to the user: nothing it did not write is ever touched.

- Where: never a place whose other contents matter more than a render: the file system's root or a folder directly
  below it (``/etc``, ``/tmp``, ``/home`` ...), anywhere inside the system's folders (``/usr``, ``/etc`` ...), the
  home folder or one above it, the project's folder or one above it,
  or the root of a repository or of a Pulumi project. Symbolic links and ``..`` are resolved before the check.
- Ownership: ``.render-manifest.json`` in the folder lists every file written here before, with its SHA-256. Only
  those files are replaced or removed; a stale one that was edited since is kept (and reported). Any other file in the
  way is a conflict, refused before anything changes.
- All or nothing: the new files are written into a staging folder of render's own making (a fresh, unique name from
  ``mkdtemp`` inside the output folder, recorded in the manifest before anything is written into it); only when all
  of them are written are they moved into place (a rename each, on the same file system), then stale files removed.
  The manifest is written before the moves naming old and new files, and again at the end, so an interrupted run
  never leaves a file that a later run would not recognise as its own. A staging folder is only ever removed by name,
  as recorded: a user's own file or folder that merely looks like one is never touched.
- One run at a time: a render holds an exclusive lock on the output folder itself (``flock`` on the folder, so no lock
  file is left behind) from reading the manifest to writing the last one; a second render into the same folder says
  it waits and waits, rather than take the first one's staging folder for a killed run's and remove it. Where
  ``flock`` does not exist (Windows), runs are not serialised.
- Containment: every path is relative, made of plain names (no ``..``, no separators), and no folder on the way is a
  symbolic link, so nothing is written outside the output folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from .output_place import dangerous

MANIFEST = ".render-manifest.json"
STAGING_PREFIX = ".render-staging-"
MANIFEST_KIND = "aks-dra-vgpu render manifest"


class OutputError(ValueError):
    """The output folder cannot take the files; one line."""


def check_folder(text: str, flag: str = "--out", project: Path | None = None) -> None:
    """Refuses an output path that is empty, a file (or a dangling link), not writable, or a dangerous place (see
    `dangerous`; `project` is the project's folder), with one line."""
    if text.strip() == "":
        raise OutputError(f"{flag}: empty path; name the folder to write into")
    if "\0" in text:
        raise OutputError(f"{flag}: the path contains a NUL character")
    path = Path(text)
    if path.is_symlink() and not path.exists():
        raise OutputError(f"{flag} {text}: a symbolic link to nothing; name a folder")
    if path.exists() and not path.is_dir():
        raise OutputError(f"{flag} {text}: is a file, not a folder")
    reason = dangerous(path, project)
    if reason:
        raise OutputError(f"{flag} {text}: {reason}; render only into a folder of its own (e.g. {flag} rendered)")
    if path.exists():
        if not os.access(path, os.W_OK | os.X_OK):
            raise OutputError(f"{flag} {text}: not writable")
        return
    ancestor = path.absolute().parent
    while not ancestor.exists():
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise OutputError(f"{flag} {text}: cannot create it: {ancestor} is a file")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputError(f"{flag} {text}: cannot create it: {ancestor} is not writable")


def safe_relative(rel: str) -> PurePosixPath | None:
    """`rel` as a path strictly inside a folder (plain names only), or None."""
    if not isinstance(rel, str) or not rel or "\\" in rel or "\0" in rel:
        return None
    path = PurePosixPath(rel)
    if path.is_absolute() or any(part in ("", ".", "..") for part in path.parts) or str(path) != rel:
        return None
    return path


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class _Manifest(NamedTuple):
    """What a manifest records: the files render wrote (with their digests), and the staging folder of a run that
    was under way (None once it ended)."""

    files: dict[PurePosixPath, str]
    staging: str | None


def _staging_name(value: object) -> str | None:
    """A recorded staging folder's name if it is one render could have made: one plain name with render's prefix."""
    if not isinstance(value, str) or not value.startswith(STAGING_PREFIX):
        return None
    rel = safe_relative(value)
    return value if rel is not None and len(rel.parts) == 1 else None


def _read_manifest(root: Path) -> _Manifest:
    path = root / MANIFEST
    if not os.path.lexists(path):
        return _Manifest({}, None)
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode) or info.st_size > 16 << 20:
        raise OutputError(f"{path}: not a render manifest (not a small regular file); move it away")
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, RecursionError):
        raise OutputError(f"{path}: not a render manifest (not JSON); delete it to render afresh") from None
    files = doc.get("files") if isinstance(doc, dict) else None
    if not isinstance(files, dict):
        raise OutputError(f"{path}: not a render manifest (no 'files'); delete it to render afresh")
    # An entry that could point outside the folder is never acted on.
    found = {safe_relative(rel): digest for rel, digest in files.items() if isinstance(digest, str)}
    owned = {rel: digest for rel, digest in found.items() if rel is not None and rel != PurePosixPath(MANIFEST)}
    return _Manifest(owned, _staging_name(doc.get("staging")))


def _write_manifest(root: Path, files: Mapping[PurePosixPath, str], staging: str | None = None) -> None:
    doc: dict[str, object] = {"kind": MANIFEST_KIND, "files": {str(rel): files[rel] for rel in sorted(files)}}
    if staging is not None:
        doc["staging"] = staging
    fd, tmp = tempfile.mkstemp(prefix=f"{MANIFEST}.", suffix=".tmp", dir=root)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, root / MANIFEST)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _remove_leftover(root: Path, name: str | None) -> None:
    """Removes the staging folder a killed run recorded, if it is still a folder (never a link) by that name."""
    if name is None:
        return
    path = root / name
    with contextlib.suppress(OSError):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            shutil.rmtree(path)  # does not follow symbolic links inside it


def _conflicts(root: Path, wanted: Mapping[PurePosixPath, bytes], owned: Mapping[PurePosixPath, str]) -> list[str]:
    problems: list[str] = []
    for rel in sorted(wanted):
        here = root
        for part in rel.parent.parts:
            here = here / part
            if os.path.islink(here):
                problems.append(f"{here}: a symbolic link where render needs a folder; render writes only inside --out")
                break
            if os.path.lexists(here) and not here.is_dir():
                problems.append(f"{here}: a file where render needs a folder; move it or render elsewhere")
                break
        else:
            target = root / rel
            if os.path.lexists(target):
                if os.path.islink(target) or not target.is_file():
                    problems.append(f"{target}: not a regular file, and render did not write it; move it or render "
                                    "elsewhere")
                elif rel not in owned:
                    problems.append(f"{target}: exists and render did not write it (not in {MANIFEST}); move it or "
                                    "render elsewhere")
    return problems


def _remove_stale(root: Path, stale: Mapping[PurePosixPath, str], notes: list[str]) -> None:
    """Removes files written here before that are no longer wanted, unless changed since; prunes emptied folders."""
    for rel, digest in sorted(stale.items()):
        target = root / rel
        if any(os.path.islink(root.joinpath(*rel.parts[:i])) for i in range(1, len(rel.parts))):
            continue
        if not os.path.lexists(target) or os.path.islink(target) or not target.is_file():
            continue
        if _digest(target.read_bytes()) != digest:
            notes.append(f"kept {target}: changed since render wrote it")
            continue
        target.unlink()
        folder = target.parent
        while folder != root and folder.is_relative_to(root) and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent


def _swap_in(root: Path, staging: Path, paths: list[PurePosixPath]) -> None:
    """Moves the staged files into place, each old version aside first; if a move fails, every earlier one is undone."""
    done: list[tuple[PurePosixPath, bool]] = []
    created: list[Path] = []  # folders this swap made, removed again on undo (a new release's helm/<name>/)
    try:
        for rel in paths:
            target = root / rel
            folder = target.parent
            while not folder.exists() and folder != root:
                created.append(folder)
                folder = folder.parent
            target.parent.mkdir(parents=True, exist_ok=True)
            had_old = os.path.lexists(target)
            if had_old:
                (staging / "old" / rel).parent.mkdir(parents=True, exist_ok=True)
                os.replace(target, staging / "old" / rel)
            done.append((rel, had_old))
            os.replace(staging / "new" / rel, target)
    except BaseException:
        for rel, had_old in reversed(done):
            target = root / rel
            with contextlib.suppress(OSError):
                if os.path.lexists(staging / "new" / rel) or not had_old:
                    target.unlink(missing_ok=True)
                if had_old:
                    os.replace(staging / "old" / rel, target)
        for folder in sorted(set(created), key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


@contextlib.contextmanager
def _one_run_at_a_time(root: Path) -> Iterator[None]:
    """Holds the folder's lock while the block runs (released by the kernel when the process ends, however it ends, so
    a recorded staging folder seen while holding it is a dead run's); says so on stderr when it has to wait."""
    try:
        import fcntl
    except ImportError:  # Windows: no flock; runs into one folder are not serialised there
        yield
        return
    try:
        fd = os.open(root, os.O_RDONLY)
    except OSError:  # a folder render may write into but not read (write and search only): nothing to lock with
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"{root}: another render is writing into this folder; waiting for it to finish", file=sys.stderr,
                  flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def write_files(out_dir: Path, files: Mapping[PurePosixPath, bytes], notes: list[str] | None = None) -> None:
    """Makes `out_dir` hold exactly `files` among the files written here before, touching nothing else."""
    notes = notes if notes is not None else []
    check_folder(str(out_dir))
    bad = [str(rel) for rel in files if safe_relative(str(rel)) != rel or rel == PurePosixPath(MANIFEST)]
    if bad:
        raise OutputError(f"render would write outside its folder ({bad[0]}); nothing was written")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        root = out_dir.resolve()
        with _one_run_at_a_time(root):
            _write_locked(root, files, notes)
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        raise OutputError(f"{out_dir}: cannot write ({exc.strerror or exc}{where})") from None


def _write_locked(root: Path, files: Mapping[PurePosixPath, bytes], notes: list[str]) -> None:
    """`write_files` once the folder is this run's alone."""
    owned, leftover = _read_manifest(root)
    _remove_leftover(root, leftover)  # from a run that was killed half way; never found by its name's pattern
    problems = list(dict.fromkeys(_conflicts(root, files, owned)))
    if problems:
        raise OutputError("; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""))
    staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))  # a unique name no one else uses
    listed = owned  # what the manifest lists once the staging folder is gone
    try:
        _write_manifest(root, owned, staging.name)  # recorded before anything is written into it
        for rel, data in files.items():
            path = staging / "new" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        new = {rel: _digest(data) for rel, data in files.items()}
        _write_manifest(root, {**owned, **new}, staging.name)
        try:
            _swap_in(root, staging, sorted(files))
        except BaseException:
            _write_manifest(root, owned, staging.name)  # every move was undone: the folder is as it was
            raise
        listed = {**owned, **new}
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        if not os.path.lexists(staging):
            with contextlib.suppress(OSError):  # a failure to say so leaves a record of a folder that is gone
                _write_manifest(root, listed)
    _remove_stale(root, {rel: d for rel, d in owned.items() if rel not in files}, notes)
    _write_manifest(root, new)
