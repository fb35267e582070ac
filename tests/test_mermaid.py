"""The Mermaid resource graph: valid flowchart syntax (checked by a strict parser of the subset we emit), faithful to
the plan, deterministic, and the copy in the README equals what the dev stack generates now."""

from __future__ import annotations

import random
import re

import pytest

from components.cli import main
from components.cli.docs import GRAPH_BLOCK, markers, mermaid_block, read_block
from components.offline import Plan, Registration
from components.review.mermaid import RESERVED_IDS, assign_ids, escape_label, sanitize_id, to_mermaid
from tests.conftest import ROOT

# --- a strict checker for the subset of Mermaid flowchart syntax to_mermaid emits ------------------------------------------
_ID = r"[A-Za-z][A-Za-z0-9_]*"
_LABEL = r'"(?P<label>[^"\n]*)"'
_HEADER = re.compile(r"^(flowchart|graph) (TD|TB|BT|LR|RL)$")
_NODE = re.compile(rf"^(?P<id>{_ID})\[{_LABEL}\]$")
_SUBGRAPH = re.compile(rf"^subgraph (?P<id>{_ID})\[{_LABEL}\]$")
_EDGE = re.compile(rf"^(?P<source>{_ID}) (?P<link>-->|-\.->|---) (?P<target>{_ID})$")
_ENTITY = re.compile(r"#(\d+|[a-z]+);")
_UNSAFE_IN_LABEL = set('#"<>`&')


def check_mermaid(text: str) -> list[str]:
    """Every way `text` breaks the flowchart subset: header, declarations, nesting, labels, edge endpoints."""
    problems: list[str] = []
    if not text.endswith("\n"):
        problems.append("no newline at the end")
    lines = text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")
    body = [(n, line) for n, line in enumerate(lines, 1) if not line.strip().startswith("%%")]
    if not body or not _HEADER.match(body[0][1]):
        return [*problems, "line 1: expected a header like 'flowchart TD'"]
    declared: dict[str, int] = {}
    enclosing: dict[str, tuple[str, ...]] = {}  # id -> the subgraphs around it, outermost first
    stack: list[str] = []
    edges: list[tuple[int, str, str]] = []
    for n, line in body[1:]:
        stripped = line.strip()
        if line != "    " * (len(stack) + (0 if stripped == "end" else 1)) + stripped and stripped != "end":
            problems.append(f"line {n}: indentation does not match nesting depth {len(stack)}")
        if stripped == "end":
            if not stack:
                problems.append(f"line {n}: 'end' without an open subgraph")
            else:
                stack.pop()
                if line != "    " * (len(stack) + 1) + "end":
                    problems.append(f"line {n}: 'end' indented unlike its subgraph")
            continue
        match = _SUBGRAPH.match(stripped) or _NODE.match(stripped)
        if match:
            ident, label = match.group("id"), match.group("label")
            if ident.lower() in RESERVED_IDS:
                problems.append(f"line {n}: id '{ident}' is a Mermaid keyword")
            if ident in declared:
                problems.append(f"line {n}: id '{ident}' declared again (first on line {declared[ident]})")
            declared[ident] = n
            enclosing[ident] = tuple(stack)
            unsafe = _UNSAFE_IN_LABEL & set(_ENTITY.sub("", label))
            if unsafe:
                problems.append(f"line {n}: label has unescaped {''.join(sorted(unsafe))}")
            if not label.strip():
                problems.append(f"line {n}: empty label")
            if stripped.startswith("subgraph "):
                stack.append(ident)
            continue
        edge = _EDGE.match(stripped)
        if edge:
            if stack:
                problems.append(f"line {n}: edge inside a subgraph (it would pull its nodes in)")
            edges.append((n, edge.group("source"), edge.group("target")))
            continue
        problems.append(f"line {n}: not a node, subgraph, end or edge: {stripped!r}")
    if stack:
        problems.append(f"subgraph '{stack[-1]}' is never closed with 'end'")
    seen: set[tuple[str, str]] = set()
    for n, source, target in edges:
        for end in (source, target):
            if end not in declared:
                problems.append(f"line {n}: edge names '{end}', which is not declared")
        if source == target:
            problems.append(f"line {n}: edge from '{source}' to itself")
        if source in enclosing.get(target, ()) or target in enclosing.get(source, ()):
            problems.append(f"line {n}: edge between a subgraph and its own content")
        if (source, target) in seen:
            problems.append(f"line {n}: edge {source} -> {target} repeated")
        seen.add((source, target))
    return problems


GOOD = 'flowchart TD\n    subgraph c["Comp c"]\n        a["A a"]\n    end\n    b["B #34;b#34;"]\n    a --> b\n'


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (GOOD.replace("flowchart TD", "flowchart"), "header"),
        (GOOD.replace("    end\n", ""), "never closed"),
        (GOOD + "    end\n", "without an open subgraph"),
        (GOOD.replace("a --> b", "a --> z"), "'z', which is not declared"),
        (GOOD.replace("#34;b#34;", '"b"'), "not a node"),
        (GOOD.replace("#34;b#34;", "<b>"), "unescaped <>"),
        (GOOD.replace('b["B', 'end["B').replace("--> b", "--> end"), "keyword"),
        (GOOD.replace('b["B', 'a["B').replace("a --> b", "c --> a"), "declared again"),
        (GOOD.replace("a --> b", "c --> a"), "its own content"),
        (GOOD + "    a --> b\n", "repeated"),
        (GOOD.replace("    a --> b\n", "    a -> b\n"), "not a node"),
        (GOOD.replace('        a["A a"]', '    a["A a"]'), "indentation"),
        (GOOD.rstrip("\n"), "newline"),
    ],
)
def test_checker_rejects_broken_graphs(text, problem):
    assert check_mermaid(GOOD) == []
    found = check_mermaid(text)
    assert any(problem in p for p in found), found


# --- the real plans ------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def plans(shipped_plan) -> dict[str, Plan]:
    """The dev and prod plans (first previews), captured once for the session."""
    return {stack: shipped_plan(stack) for stack in ("dev", "prod")}


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_stack_graphs_are_valid_mermaid(plans, stack):
    text = to_mermaid(plans[stack])
    assert text.startswith("flowchart TD\n")
    assert check_mermaid(text) == []


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_graph_shows_every_resource_dependency_and_provider_link(plans, stack):
    plan = plans[stack]
    text = to_mermaid(plan)
    ids = assign_ids(plan.resources)
    for r in plan.resources:
        kind = "subgraph " if not r.custom else ""
        assert f'{kind}{ids[r.urn]}["' in text, r.urn
    urns = {r.urn for r in plan.resources}
    components = {r.urn for r in plan.resources if not r.custom}
    for r in plan.resources:
        for dep in r.dependencies:
            if dep in urns and dep not in components:
                assert f"    {ids[dep]} --> {ids[r.urn]}\n" in text, (dep, r.urn)
    provider = next(r for r in plan.resources if r.type == "pulumi:providers:kubernetes")
    k8s_objects = [r for r in plan.resources if r.type.startswith("kubernetes:")]
    assert k8s_objects
    for r in k8s_objects:
        assert f"    {ids[provider.urn]} -.-> {ids[r.urn]}\n" in text


def test_components_enclose_their_children(plans):
    lines = to_mermaid(plans["dev"]).splitlines()
    pool_line = next(i for i, line in enumerate(lines) if '["AgentPool gpu-a10s-pool"]' in line)
    opener = max(i for i, line in enumerate(lines[:pool_line]) if line.strip().startswith("subgraph "))
    assert lines[opener].strip() == 'subgraph gpu_a10s["GpuNodePool gpu-a10s"]'
    assert lines[pool_line + 1].strip() == "end"


def test_output_does_not_depend_on_registration_order(plans):
    plan = plans["prod"]
    shuffled = list(plan.resources)
    random.Random(7).shuffle(shuffled)
    assert to_mermaid(Plan(plan.project, plan.stack, shuffled)) == to_mermaid(plan)


def test_cli_prints_the_graph(capsys, plans):
    assert main(["plan", "--stack", "dev", "--project-dir", str(ROOT), "--format", "mermaid"]) == 0
    out, err = capsys.readouterr()
    # dev's GPU pool autoscales, from 0: two warnings on stderr, the graph on stdout untouched.
    assert err.startswith("warning: pool a10s autoscales from minCount 0") and err.count("\n") == 2
    assert out == to_mermaid(plans["dev"])


def test_readme_diagram_is_the_generated_dev_graph(plans):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Resource graph (dev)" in readme
    heading = readme.index("## Resource graph (dev)")
    assert readme.index(markers(GRAPH_BLOCK)[0]) > heading
    assert read_block(readme, GRAPH_BLOCK) == mermaid_block(to_mermaid(plans["dev"])), (
        "README.md's resource graph is stale: run `python -m components docs`"
    )


# --- ids and labels, on made-up plans ------------------------------------------------------------------------------------
P = "urn:pulumi:s::p::"


def reg(urn: str, type_: str, name: str, *, custom: bool = True, parent: str | None = None,
        provider: str | None = None, deps: tuple[str, ...] = ()) -> Registration:
    return Registration(P + urn, type_, name, custom, P + parent if parent else None,
                        P + provider if provider else None, [P + d for d in deps], {}, {})


def test_labels_escape_what_would_break_the_syntax():
    assert escape_label('say "hi" <b>#1</b>\n`x` & y') == "say #34;hi#34; #60;b#62;#35;1#60;/b#62; #96;x#96; #38; y"


@pytest.mark.parametrize(
    ("name", "ident"),
    [("gpu-cluster-aks", "gpu_cluster_aks"), ("end", "r_end"), ("Graph", "r_Graph"), ("9lives", "r_9lives"),
     ("a.b/c d", "a_b_c_d"), ("_x", "r__x")],
)
def test_ids_are_safe(name, ident):
    assert sanitize_id(name) == ident


def test_ids_stay_unique_when_names_collide():
    plan_resources = [
        reg("x:y:Thing::same", "x:y:Thing", "same"),
        reg("x:y:Other::same", "x:y:Other", "same"),
        reg("x:z:Other::same", "x:z:Other", "same"),
        reg("x:y:Thing::same_", "x:y:Thing", "same_"),
        reg("x:y:Thing::same-", "x:y:Thing", "same-"),
    ]
    ids = assign_ids(plan_resources)
    assert len(set(ids.values())) == len(plan_resources)
    assert ids[P + "x:y:Thing::same"] == "Thing_same"
    assert {ids[P + "x:y:Other::same"], ids[P + "x:z:Other::same"]} == {"Other_same", "Other_same_2"}


def test_made_up_plan_with_odd_shapes_is_valid():
    resources = [
        reg("c:C::end", "c:C", "end", custom=False),
        reg("c:C$x:y:T::o-thing", "x:y:T", 'o-thing "quoted"', parent="c:C::end", deps=("c:E::empty",)),
        reg("c:E::empty", "c:E", "empty", custom=False),
        reg("x:y:T::xray", "x:y:T", "xray", deps=("c:C::end", "x:y:T::missing")),
        reg("x:y:T$x:y:K::child", "x:y:K", "child", parent="x:y:T::xray", provider="pulumi:providers:k::prov::abc"),
        reg("pulumi:providers:k::prov", "pulumi:providers:k", "prov"),
        reg("c:C$x:y:T::loop", "x:y:T", "loop", parent="c:C::end", deps=("c:C::end",)),
    ]
    text = to_mermaid(Plan("p", "s", sorted(resources, key=lambda r: r.urn)))
    assert check_mermaid(text) == [], text
    assert "    r_end --> xray\n" in text  # a dependency on a component links its subgraph
    assert "    empty --> o_thing__quoted_\n" in text
    assert "    prov -.-> child\n" in text
    assert "    xray --- child\n" in text  # a custom parent is a plain line, not a subgraph
    assert "r_end --> loop" not in text  # never a link into one's own enclosing subgraph
    assert "missing" not in text
    assert 'subgraph empty["E empty"]\n    end' in text
