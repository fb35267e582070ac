"""The loader behind `safe_yaml`: PyYAML's safe loader with bounded depth and expansion, Pulumi's scalars
(`yaml_scalars`), strict mappings, and each problem recorded with its key path while the rest is built.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode

from .yaml_bounds import MAX_DEPTH, MERGE, check_expansion, node_paths
from .yaml_scalars import _AMBIGUOUS, _INT, _Resolver
from .yaml_values import dotted, kind, octal_ambiguity, shown, yaml11_ambiguity

MAX_DIGITS = 32


class YamlInputError(ValueError):
    """A YAML file that cannot be read safely; the message is one line: ``file[:line:col]: [key path: ]problem``.

    `path` is the key path of the value at fault (empty when the problem is not in one value), `problem` the problem
    alone and `where` the ``file:line:col`` part, so a caller can name the key its own way."""

    def __init__(self, message: str, path: tuple[str | int, ...] = (), problem: str = "", where: str = ""):
        super().__init__(message)
        self.path, self.problem, self.where = path, problem or message, where or message.partition(": ")[0]
        self.position = (0, 0)  # (line, column) from 0, to list problems in the file's order


class _KeyedError(ConstructorError):
    """A problem in one value, with the key path of the node it was found in."""

    def __init__(self, problem: str, mark: Any, path: tuple[str | int, ...] | None):
        super().__init__(None, None, problem, mark)
        self.path = path or ()


class _Refused:
    """Stands for a value refused while the document is built (its problem is recorded); removed before it is returned."""

    def __repr__(self) -> str:
        return "<refused>"


REFUSED = _Refused()


class _Loader(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer,
              yaml.constructor.SafeConstructor, _Resolver):
    """PyYAML's safe loader (no Python objects) with the bounds, scalar types and strict mappings of this module."""

    def __init__(self, stream: str, name: str = ""):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        _Resolver.__init__(self)
        self._depth = 0
        self._paths: dict[int, tuple[str | int, ...]] = {}
        self.name = name
        self.problems: list[YamlInputError] = []
        # Every value is built where its node is (no deferred generators), so a problem is caught at its own node.
        self.deep_construct = True

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
            check_expansion(node)
            self._paths = node_paths(node)
        return node

    def _refuse(self, problem: str, node: Node) -> _KeyedError:
        return _KeyedError(problem, node.start_mark, self._paths.get(id(node)))

    def _record(self, exc: yaml.MarkedYAMLError) -> None:
        self.problems.append(_keyed_problem(exc, self.name))

    def construct_object(self, node: Node, deep: bool = False) -> Any:
        """The node's value, or REFUSED with its problem recorded: one bad value never hides the rest of the file."""
        if node in self.constructed_objects:
            return self.constructed_objects[node]
        try:
            return self._construct(node, deep)
        except _KeyedError as exc:
            self._record(exc)
        # Undo what PyYAML's construct_object leaves behind when a constructor raises, so an alias of this node is
        # refused too (without a second report) and the rest of the document is built as usual.
        self.recursive_objects.pop(node, None)
        self.deep_construct = True
        self.constructed_objects[node] = REFUSED
        return REFUSED

    def _construct(self, node: Node, deep: bool) -> Any:
        if node.tag == "tag:yaml.org,2002:set" and not isinstance(node, MappingNode):
            raise self._refuse("!!set on a list: YAML's set is a mapping whose keys have no values ({a, b}), and "
                               "config cannot carry one; remove the tag to pass the list", node)
        try:
            return super().construct_object(node, deep)
        except _KeyedError:
            raise
        except ConstructorError as exc:  # PyYAML's own (an unknown tag): the node's key path added
            raise self._refuse(str(exc.problem), node) from None
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError) as exc:
            # PyYAML's constructors trust the text they are given (`!!bool maybe`, `!!float x`, `2024-13-45`); only a
            # ValueError says something about the text, the others about PyYAML's insides.
            why = f": {exc}" if type(exc) is ValueError else ""
            raise self._refuse(f"cannot read {node.value!r} as {_tag_name(node.tag)}{why}", node) from None

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        """The mapping without its refused entries: a key written twice (the first kept), a key that is not text."""
        if not isinstance(node, MappingNode):
            raise self._refuse(f"expected a mapping, found {_tag_name(node.tag)}", node)
        seen: set[str] = set()
        kept: list[tuple[Node, Node]] = []
        merges = 0
        for key_node, value_node in node.value:
            if key_node.tag == MERGE:
                merges += 1
                if merges > 1:
                    self._record(_KeyedError("merge key '<<' is written twice", key_node.start_mark,
                                             self._paths.get(id(node))))
                    continue
                kept.append((key_node, value_node))
                continue
            key = self.construct_object(key_node, deep=True)
            if key is REFUSED:
                continue
            if not isinstance(key, str):
                self._record(self._refuse(f"key {shown(key)} is {kind(key)}, not text; quote it", key_node))
                continue
            if key in seen:
                self._record(self._refuse(f"key '{key}' is written twice", key_node))
                continue
            seen.add(key)
            kept.append((key_node, value_node))
        node.value = kept
        try:
            built = super().construct_mapping(node, deep)
        except _KeyedError:
            raise
        except ConstructorError as exc:  # a merge key that names no mapping
            raise _KeyedError(str(exc.problem), exc.problem_mark, self._paths.get(id(node))) from None
        return {k: v for k, v in built.items() if v is not REFUSED}

    def construct_yaml_int(self, node: ScalarNode) -> int:
        text = self.construct_scalar(node).replace("_", "")
        sign, body = (-1, text[1:]) if text[:1] == "-" else (1, text.lstrip("+"))
        if len(body) > MAX_DIGITS:
            raise self._refuse(f"a number of {len(body)} digits is too long (at most {MAX_DIGITS}); quote it to pass "
                               "text", node)
        if node.style is None and node.tag == _INT and octal_ambiguity(node.value):
            raise self._refuse(str(octal_ambiguity(node.value)), node)
        for prefix, base in (("0b", 2), ("0o", 8), ("0x", 16)):
            if body.startswith(prefix):
                return sign * int(body[2:], base)
        # yaml.v3 still reads YAML 1.1's 0777 as octal, "for compatibility" (go-yaml/yaml resolve.go).
        return sign * int(body, 8 if len(body) > 1 and body[0] == "0" else 10)


    def construct_ambiguous(self, node: ScalarNode) -> str:
        raise self._refuse(str(yaml11_ambiguity(node.value)), node)


_Loader.add_constructor(_INT, _Loader.construct_yaml_int)
_Loader.add_constructor(_AMBIGUOUS, _Loader.construct_ambiguous)


def _tag_name(tag: str) -> str:
    return tag.replace("tag:yaml.org,2002:", "!!")


# PyYAML's parser (yaml/parser.py) names the flow collection it was inside when a ',' or closing bracket is missing.
FLOW_OPENERS = {"while parsing a flow sequence": "'['", "while parsing a flow mapping": "'{'"}


def _keyed_problem(exc: yaml.MarkedYAMLError, name: str) -> YamlInputError:
    """A problem found while the document was built, as one line with the file, line, column and key path."""
    mark = exc.problem_mark or exc.context_mark
    problem = " ".join(str(exc.problem or exc.context or "unreadable").split())
    opened = FLOW_OPENERS.get(str(exc.context or ""))
    if opened and exc.context_mark is not None and exc.problem_mark is not None:
        # PyYAML marks where it gave up (the next key, or the end of the file); the mistake is the bracket left open.
        problem = (f"the {opened} opened here is never closed ({problem} at line {exc.problem_mark.line + 1}, "
                   f"column {exc.problem_mark.column + 1})")
        mark = exc.context_mark
    where = f"{name}:{mark.line + 1}:{mark.column + 1}" if mark else name
    path = getattr(exc, "path", ())
    if path:
        found = YamlInputError(f"{where}: {dotted(path)}: {problem}", path, problem, where)
    else:
        found = YamlInputError(f"{where}: not valid YAML: {problem}", (), f"not valid YAML: {problem}", where)
    found.position = (mark.line, mark.column) if mark else (0, 0)
    return found


def _without_refused(data: Any) -> Any:
    """The data with every REFUSED value removed (a list keeps its indices: the item becomes null)."""
    if data is REFUSED:
        return None
    seen: set[int] = set()
    stack = [data]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            for key in [k for k, v in node.items() if v is REFUSED]:
                del node[key]
            stack.extend(v for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            node[:] = [None if item is REFUSED else item for item in node]
            stack.extend(v for v in node if isinstance(v, (dict, list)))
    return data
