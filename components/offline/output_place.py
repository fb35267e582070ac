"""Where render may write: never a place whose other contents matter more than a render (the file system's root and
the folders directly below it, the system's folders, the home folder, the project's folder and those above them, a
repository's or a Pulumi project's root). Symbolic links and ``..`` are resolved before the check, as the file system
would resolve them."""

from __future__ import annotations

import os
from pathlib import Path

# The operating system's own folders: nothing of a render belongs anywhere inside them (resolved, as `/bin` may be a
# link to `/usr/bin`).
SYSTEM_FOLDERS = ("/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/sbin", "/sys",
                  "/usr", "/System", "/Library")


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError, OSError):  # no home folder known (no HOME, no passwd entry)
        return None


def _top_folders() -> set[Path]:
    """Where the folders directly below the root lead (macOS's /tmp is /private/tmp)."""
    try:
        return {entry.resolve() for entry in Path(Path.cwd().anchor or "/").iterdir()}
    except (OSError, RuntimeError):
        return set()


def dangerous(path: Path, project: Path | None = None) -> str | None:
    """Why `path` is no place for render's files (where they would mix with a system's, a person's or a project's
    own), or None. Symbolic links and ``..`` are resolved first, as the file system would."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError):
        return "a loop of symbolic links"
    if real.parent == real:
        return "the file system's root"
    if real.parent.parent == real.parent or real in _top_folders():
        return f"{real} is a folder directly below the file system's root"
    for system in SYSTEM_FOLDERS:
        folder = Path(system).resolve()
        if folder.parent != folder and real.is_relative_to(folder):
            return f"{real} is inside the system folder {folder}"
    for place, what in ((_home(), "home folder"), (project.resolve() if project else None, "project's folder")):
        if place is not None and real == place:
            return f"the {what} ({real})"
        if place is not None and real in place.parents:
            return f"{real} holds the {what} ({place})"
    if real.is_dir():
        if os.path.lexists(real / ".git"):
            return f"{real} is the root of a repository"
        if any((real / name).exists() for name in ("Pulumi.yaml", "Pulumi.yml")):
            return f"{real} is a Pulumi project's folder"
    return None
