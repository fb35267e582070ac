"""The node graph of a YAML file, before it becomes data: how far its aliases expand, and where each node sits.

Split from `safe_yaml`. `check_expansion` refuses a graph that aliases make recursive, too large or too deep once
expanded (a "billion laughs" file is refused before it is built); `node_paths` gives each node the key path it is first
reached by, so a problem found while building a value names the key that holds it, not only a line and column.
"""

from __future__ import annotations

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

MAX_DEPTH = 64
MAX_NODES = 100_000
MAX_TEXT = 4 << 20
MERGE = "tag:yaml.org,2002:merge"

Path = tuple[str | int, ...]


def children(node: Node) -> list[Node]:
    """The nodes directly inside `node` (a mapping's keys and values)."""
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def check_expansion(root: Node) -> None:
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
            kids = children(node)
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
        for kid in children(node):
            if id(kid) in open_nodes:
                raise yaml.composer.ComposerError(None, None, "an alias refers to a value that contains it (a recursive "
                                                  "alias)", kid.start_mark)
            if id(kid) not in size:
                stack.append((kid, False))


def node_paths(root: Node) -> dict[int, Path]:
    """id(node) -> the key path it is first reached by (a key node has the path of its value; the entries a merge key
    brings in sit in the mapping that merges them). Each node is visited once: bounded by `check_expansion`."""
    paths: dict[int, Path] = {id(root): ()}
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        here = paths[id(node)]
        if isinstance(node, SequenceNode):
            placed = [(item, (*here, index)) for index, item in enumerate(node.value)]
        elif isinstance(node, MappingNode):
            placed = []
            for key_node, value_node in node.value:
                if key_node.tag == MERGE:
                    merged = value_node.value if isinstance(value_node, SequenceNode) else []
                    placed += [(item, here) for item in merged] + [(value_node, here)]
                    continue
                label = key_node.value if isinstance(key_node, ScalarNode) else "?"
                placed += [(key_node, (*here, label)), (value_node, (*here, label))]
        else:
            placed = []
        for kid, path in placed:
            if id(kid) not in paths:
                paths[id(kid)] = path
                stack.append(kid)
    return paths
