"""YAML that someone else wrote, read as Pulumi reads it and within bounds: one idea, "this file cannot hurt us".

- Bounded: a file of at most 1 MiB, regular (never a FIFO or a device), UTF-8 (a UTF-8 BOM is dropped, as Pulumi's
  ``readFileStripUTF8BOM`` does in pulumi/pulumi `sdk/go/common/workspace/loaders.go`); nesting at most 64 levels;
  aliases expanded to at most 100 000 nodes and 4 MiB of text (a "billion laughs" file is refused at once, before it
  is built), and never recursive.
- Pulumi's scalars: Pulumi reads stack files with gopkg.in/yaml.v3 (pulumi/pulumi `sdk/go/common/encoding/marshal.go`),
  which resolves only ``true``/``false`` as booleans (``yes``, ``on``, ``n`` stay text), has no base-60 numbers, and
  reads ``0o17`` as octal and ``1e3`` as a number (go-yaml/yaml `resolve.go`). PyYAML is YAML 1.1 and differs in each
  of these, so its resolver table is replaced here.
- Strict mappings: a key written twice is an error, keys are text, and merge keys (``<<: *base``) work, with the
  mapping's own keys winning over merged ones (YAML's merge key type, yaml.org/type/merge).

Every problem is a `YamlInputError` whose message is one line naming the file, line and column.
"""

from __future__ import annotations

import datetime
import math
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 64
MAX_NODES = 100_000
MAX_TEXT = 4 << 20
MAX_DIGITS = 32
# Pulumi passes numbers as 64-bit floats (google.protobuf.Value): a larger integer arrives changed.
MAX_EXACT_INT = 2**53

_BOOL, _INT, _FLOAT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_MERGE = "tag:yaml.org,2002:merge"


class YamlInputError(ValueError):
    """A YAML file that cannot be read safely; the message is one line: ``file[:line:col]: problem``."""


class _Resolver(yaml.resolver.Resolver):
    """yaml.v3's implicit scalar types instead of YAML 1.1's (see the module docstring)."""


_Resolver.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_BOOL, _INT, _FLOAT)]
    for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
}
_Resolver.add_implicit_resolver(_BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)\Z"), list("tTfF"))
_Resolver.add_implicit_resolver(
    _INT,
    re.compile(r"^(?:[-+]?0b[01_]+|[-+]?0o[0-7_]+|[-+]?0x[0-9a-fA-F_]+|[-+]?[0-9][0-9_]*)\Z"),
    list("-+0123456789"),
)
_Resolver.add_implicit_resolver(
    _FLOAT,
    re.compile(r"^(?:[-+]?(?:\.[0-9_]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"),
    list("-+0123456789."),
)


class _Loader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
              yaml.constructor.SafeConstructor, _Resolver):
    """PyYAML's safe loader (no Python objects) with the bounds, scalar types and strict mappings of this module."""

    def __init__(self, stream: str):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        _Resolver.__init__(self)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: Any) -> Node:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"nested deeper than {MAX_DEPTH} levels", self.peek_event().start_mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def get_single_node(self) -> Node | None:
        node = super().get_single_node()
        if node is not None:
            _check_expansion(node)
        return node

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            # PyYAML's constructors trust the text they are given (`!!bool maybe`, `!!float x`, `2024-13-45`).
            raise ConstructorError(None, None, f"cannot read {node.value!r} as {_tag_name(node.tag)}: {exc}",
                                   node.start_mark) from None

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, MappingNode):
            raise ConstructorError(None, None, f"expected a mapping, found {_tag_name(node.tag)}", node.start_mark)
        seen: set[str] = set()
        merges = 0
        for key_node, _ in node.value:
            if key_node.tag == _MERGE:
                merges += 1
                if merges > 1:
                    raise ConstructorError(None, None, "merge key '<<' is written twice", key_node.start_mark)
                continue
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                raise ConstructorError(
                    None, None, f"key {_shown(key)} is {_kind(key)}, not text; quote it", key_node.start_mark
                )
            if key in seen:
                raise ConstructorError(None, None, f"key '{key}' is written twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node: ScalarNode) -> int:
        text = self.construct_scalar(node).replace("_", "")
        sign, body = (-1, text[1:]) if text[:1] == "-" else (1, text.lstrip("+"))
        if len(body) > MAX_DIGITS:
            raise ConstructorError(None, None, f"a number of {len(body)} digits is too long", node.start_mark)
        for prefix, base in (("0b", 2), ("0o", 8), ("0x", 16)):
            if body.startswith(prefix):
                return sign * int(body[2:], base)
        # yaml.v3 still reads YAML 1.1's 0777 as octal, "for compatibility" (go-yaml/yaml resolve.go).
        return sign * int(body, 8 if len(body) > 1 and body[0] == "0" else 10)


_Loader.add_constructor(_INT, _Loader.construct_yaml_int)


def _tag_name(tag: str) -> str:
    return tag.replace("tag:yaml.org,2002:", "!!")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return "a date"
    return f"a {type(value).__name__}"


def _shown(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    text = repr(value) if not isinstance(value, (datetime.date, datetime.datetime)) else value.isoformat()
    return text if len(text) <= 60 else text[:57] + "..."


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _check_expansion(root: Node) -> None:
    """Refuses a node graph that aliases make recursive, too large or too deep once expanded (iteratively: no
    recursion limit to hit, and each shared node is counted once however often it is referenced)."""
    size: dict[int, int] = {}
    text: dict[int, int] = {}
    depth: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            kids = _children(node)
            size[key] = 1 + sum(size[id(k)] for k in kids)
            text[key] = (len(node.value) if isinstance(node, ScalarNode) else 0) + sum(text[id(k)] for k in kids)
            depth[key] = 1 + max((depth[id(k)] for k in kids), default=0)
            open_nodes.discard(key)
            if size[key] > MAX_NODES or text[key] > MAX_TEXT:
                raise yaml.composer.ComposerError(
                    None, None, f"aliases expand this to more than {MAX_NODES} values or {MAX_TEXT >> 20} MiB of text",
                    node.start_mark,
                )
            if depth[key] > 2 * MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None, None, f"aliases nest this deeper than {2 * MAX_DEPTH} levels", node.start_mark
                )
            continue
        if key in size:
            continue
        open_nodes.add(key)
        stack.append((node, True))
        for kid in _children(node):
            if id(kid) in open_nodes:
                raise yaml.composer.ComposerError(None, None, "an alias refers to a value that contains it (a recursive "
                                                  "alias)", kid.start_mark)
            if id(kid) not in size:
                stack.append((kid, False))


def read_text(path: Path, shown: str | None = None) -> str:
    """A small regular UTF-8 file's text (BOM dropped); YamlInputError (one line) for anything else."""
    name = shown or path.name
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise YamlInputError(f"{name}: is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise YamlInputError(f"{name}: not a regular file (a pipe, socket or device); write the settings in a file")
        if info.st_size > MAX_FILE_BYTES:
            raise YamlInputError(f"{name}: {info.st_size} bytes is too large (at most {MAX_FILE_BYTES >> 20} MiB)")
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise YamlInputError(f"{name}: no such file") from None
    except PermissionError:
        raise YamlInputError(f"{name}: not readable (permission denied)") from None
    except OSError as exc:
        raise YamlInputError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:
        raise YamlInputError(f"{name}: too large (at most {MAX_FILE_BYTES >> 20} MiB)")
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


def load(text: str, name: str) -> Any:
    """The one YAML document in `text`, as plain data; YamlInputError (one line) when it is not safe YAML."""
    loader = None
    try:
        loader = _Loader(text)  # the reader refuses control characters as it is built
        return loader.get_single_data()
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        raise YamlInputError(
            f"{name}:{line}:{column}: not valid YAML: character #x{exc.character:04x} is not allowed in YAML"
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        problem = " ".join(str(exc.problem or exc.context or "unreadable").split())
        raise YamlInputError(f"{name}{where}: not valid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise YamlInputError(f"{name}: not valid YAML: {' '.join(str(exc).split())}") from None
    except RecursionError:
        raise YamlInputError(f"{name}: not valid YAML: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()


def read(path: Path, shown: str | None = None) -> Any:
    """A YAML file's one document as plain data, read within this module's bounds."""
    return load(read_text(path, shown), shown or path.name)


def foreign_values(value: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(key path, problem) for every value Pulumi config cannot carry as written: dates, binary, sets, pairs, numbers
    that are not finite or too large to stay exact, keys that are not text."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [(path, value)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, dict):
            for key in sorted(node, key=str, reverse=True):
                if not isinstance(key, str):
                    yield where, f"key {_shown(key)} is {_kind(key)}, not text; quote it"
                else:
                    stack.append(((*where, key), node[key]))
        elif isinstance(node, list):
            stack.extend(((*where, i), item) for i, item in reversed(list(enumerate(node))))
        elif isinstance(node, (datetime.date, datetime.datetime)):
            yield where, f"YAML reads {node.isoformat()} as a date, which Pulumi would pass in another form; quote it"
        elif isinstance(node, bytes):
            yield where, "a !!binary value; config holds text, numbers, booleans, lists and maps (write base64 as text)"
        elif isinstance(node, set):
            yield where, "a !!set; write a list"
        elif isinstance(node, tuple):
            yield where, "!!omap or !!pairs; write a mapping"
        elif isinstance(node, float) and not math.isfinite(node):
            yield where, f"{node} is not a finite number; JSON and Helm values cannot hold it"
        elif isinstance(node, int) and not isinstance(node, bool) and abs(node) > MAX_EXACT_INT:
            yield where, (f"{node} is too large to pass exactly (Pulumi sends numbers as 64-bit floats, exact up to "
                          "2^53); quote it to pass text")
        elif not isinstance(node, (str, int, float, bool, type(None))):
            yield where, f"a value of type {type(node).__name__} cannot be config"
