"""Files someone else names on the command line or in a project, read so that none can hang or flood the reader.

A path may name a FIFO (reading blocks forever), a device (``/dev/zero`` never ends), a folder, or a file swapped for
one of those between a check and the read. `read_regular` opens without blocking and checks the open descriptor.
"""

from __future__ import annotations

import os
import stat


class NotRegularFileError(OSError):
    """What `read_regular` found instead of a regular file: 'folder' or 'special' (a pipe, socket or device)."""


class FileTooLargeError(OSError):
    """A file over the limit `read_regular` was given; the size in bytes as `size` (-1 when it grew while read)."""

    def __init__(self, size: int):
        super().__init__(size)
        self.size = size


def read_regular(path: str | os.PathLike[str], limit: int) -> bytes:
    """A regular file's bytes, at most `limit`: opened without blocking and checked on the open descriptor, so a file
    swapped for a FIFO or a device between a check and the read cannot hang or flood the reader."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFileError("folder" if stat.S_ISDIR(info.st_mode) else "special")
        if info.st_size > limit:
            raise FileTooLargeError(info.st_size)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise FileTooLargeError(-1)
    return data
