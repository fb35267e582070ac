"""YAML that someone else wrote, read as Pulumi reads it and within bounds: one idea, "this file cannot hurt us".

- Bounded: a file of at most 1 MiB, regular (never a FIFO or a device), UTF-8 (a UTF-8 BOM is dropped, as Pulumi's
  ``readFileStripUTF8BOM`` does in pulumi/pulumi `sdk/go/common/workspace/loaders.go`); nesting at most 64 levels;
  aliases expanded to at most 100 000 nodes and 4 MiB of text (a "billion laughs" file is refused at once, before it
  is built), and never recursive.
- Pulumi's scalars: Pulumi reads stack files with gopkg.in/yaml.v3 (pulumi/pulumi `sdk/go/common/encoding/marshal.go`),
  which resolves only ``true``/``false`` as booleans (``yes``, ``on``, ``n`` stay text), has no base-60 numbers, and
  reads ``0o17`` as octal and ``1e3`` as a number (go-yaml/yaml `resolve.go`). PyYAML is YAML 1.1 and differs in each
  of these, so its resolver table is replaced here. A plain scalar that YAML 1.1 and Pulumi read differently (``no``,
  ``on``, ``y``, ``1:30``, ``0755``) is refused naming its key path: which one the writer meant cannot be told.
- Key paths: a problem in one value (a 5000-digit number, ``!!set`` on a list, a key written twice) names the key path
  of the value as well as the line and column (`yaml_bounds.node_paths`).
- Strict mappings: a key written twice is an error, keys are text, and merge keys (``<<: *base``) work, with the
  mapping's own keys winning over merged ones (YAML's merge key type, yaml.org/type/merge).

Every problem is a `YamlInputError` whose message is one line naming the file, line and column. A problem in one value
does not stop the reading: `load_collecting` gives the document without the refused values (a mapping's key left out,
a list's item null) and every problem found, so one run reports them all; `load` raises the first.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import yaml

from .files import FileTooLargeError, NotRegularFileError, read_regular
from .yaml_loader import YamlInputError, _keyed_problem, _Loader, _without_refused
from .yaml_values import MAX_EXACT_INT, foreign_values

__all__ = [
    "MAX_EXACT_INT", "YamlInputError", "decode", "foreign_values", "load", "load_collecting", "read", "read_collecting",
    "read_text",
]

MAX_FILE_BYTES = 1 << 20


def read_text(path: Path, shown: str | None = None) -> str:
    """A small regular UTF-8 file's text (BOM dropped); YamlInputError (one line) for anything else."""
    name = shown or path.name
    try:
        data = read_regular(path, MAX_FILE_BYTES)
    except NotRegularFileError as exc:
        if str(exc) == "folder":
            raise YamlInputError(f"{name}: is a folder, not a file") from None
        raise YamlInputError(f"{name}: not a regular file (a pipe, socket or device); write the settings in a file") from None
    except FileTooLargeError as exc:
        size = f"{exc.size} bytes is too large" if exc.size >= 0 else "too large"
        raise YamlInputError(f"{name}: {size} (at most {MAX_FILE_BYTES >> 20} MiB)") from None
    except FileNotFoundError:
        raise YamlInputError(f"{name}: no such file") from None
    except PermissionError:
        raise YamlInputError(f"{name}: not readable (permission denied)") from None
    except OSError as exc:
        raise YamlInputError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    return decode(data, name)


def decode(data: bytes, name: str) -> str:
    """UTF-8 text without its BOM; a one-line error naming the first bad byte otherwise."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise YamlInputError(f"{name}: is UTF-16 text; save it as UTF-8")
    try:
        return data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise YamlInputError(
            f"{name}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); save it as UTF-8"
        ) from None


def load_collecting(text: str, name: str) -> tuple[Any, list[YamlInputError]]:
    """The one YAML document in `text` without the values that cannot be read, and a problem for each of them; raises
    YamlInputError (one line) when the file as a whole cannot be read (not YAML, too large, too deep, not UTF-8).

    A text already read in this process is not parsed again: `plan --fleet` reads its fleet file four times and each
    member's twice, the tests the shipped stacks thousands of times, and the pure-Python parser that keeps positions
    takes milliseconds where a copy takes microseconds. Each caller gets its own copy of the document and of the
    problems, to change as it likes. Only texts of at most 64 KiB are kept (a stack file is a few), the last 32 of
    them: a few MiB at most, whatever is read."""
    if len(text) > MAX_KEPT_CHARS:
        data, problems = _parse(text, name)
        return data, list(problems)
    data, problems = _kept(text, name)
    return copy.deepcopy(data), [copy.copy(problem) for problem in problems]


MAX_KEPT_CHARS = 64 << 10


def _parse(text: str, name: str) -> tuple[Any, tuple[YamlInputError, ...]]:
    """`load_collecting`'s reading itself, with no copy and nothing kept."""
    loader = None
    try:
        loader = _Loader(text, name)  # the reader refuses control characters as it is built
        data = loader.get_single_data()
        return _without_refused(data), tuple(sorted(loader.problems, key=lambda p: p.position))
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise YamlInputError(
            f"{name}:{line}:{column}: not valid YAML: character #x{exc.character:04x} is not allowed in YAML"
        ) from None
    except yaml.MarkedYAMLError as exc:
        raise _keyed_problem(exc, name) from None
    except yaml.YAMLError as exc:
        raise YamlInputError(f"{name}: not valid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise YamlInputError(f"{name}: not valid YAML: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()


_kept = functools.lru_cache(maxsize=32)(_parse)  # a text that cannot be read raises, and is never kept


def load(text: str, name: str) -> Any:
    """The one YAML document in `text`, as plain data; YamlInputError (one line, the first problem) when it is not
    safe YAML."""
    data, problems = load_collecting(text, name)
    if problems:
        raise problems[0]
    return data


def read_collecting(path: Path, shown: str | None = None) -> tuple[Any, list[YamlInputError]]:
    """A YAML file's one document without the values that cannot be read, and a problem for each (`load_collecting`)."""
    return load_collecting(read_text(path, shown), shown or path.name)


def read(path: Path, shown: str | None = None) -> Any:
    """A YAML file's one document as plain data, read within this module's bounds."""
    return load(read_text(path, shown), shown or path.name)
