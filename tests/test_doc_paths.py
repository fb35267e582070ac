"""Every `components/...` path the docs name exists: the README, docs/, and the docstrings and comments of the code,
tests and project files. CHANGELOG.md is history and names old paths on purpose."""

from __future__ import annotations

import os
import re
from pathlib import Path

from tests.conftest import ROOT

# A path of the package as docs write it: not part of a longer path or URL (`src/components/x`), trailing dots dropped.
REFERENCE = re.compile(r"(?<![\w/.-])components/[A-Za-z0-9_./-]*")
SKIPPED_FOLDERS = {".git", ".venv", "venv", "node_modules", "build", "dist", "__pycache__", ".pytest_cache",
                   ".ruff_cache"}
SUFFIXES = {".md", ".py", ".yaml", ".yml", ".toml", ".txt", ".cfg"}


def documents(root: Path) -> list[Path]:
    """The repository's text files that may name a path of the package (CHANGELOG.md left out). A skipped folder is
    never entered (a virtualenv in the checkout holds tens of thousands of files)."""
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [d for d in subfolders if d not in SKIPPED_FOLDERS and not d.endswith(".egg-info")]
        for name in files:
            path = Path(folder, name)
            if path.suffix in SUFFIXES and path.relative_to(root) != Path("CHANGELOG.md") and path.is_file():
                found.append(path)
    return sorted(found)


def missing_paths(text: str, root: Path) -> list[str]:
    """The `components/...` paths `text` names that do not exist below `root`."""
    names = {m.group(0).rstrip(".") for m in REFERENCE.finditer(text)}
    return sorted(name for name in names if not (root / name).exists())


def test_the_scan_finds_a_path_that_does_not_exist():
    gone = "components/" + "plugin.py"  # split, so that this file does not name it itself
    text = (f"see components/host/plugin.py, {gone} and components/offline/; not src/components/nowhere.py nor "
            "https://example.com/components/x.py, and `components/...` is a placeholder.")
    assert missing_paths(text, ROOT) == [gone]


def test_every_components_path_the_docs_name_exists():
    stale = [f"{path.relative_to(ROOT)}: {name}" for path in documents(ROOT)
             for name in missing_paths(path.read_text(encoding="utf-8", errors="replace"), ROOT)]
    assert stale == [], "these files name a path of the package that does not exist:\n" + "\n".join(stale)


def test_the_readme_and_docs_are_scanned():
    scanned = {path.relative_to(ROOT).as_posix() for path in documents(ROOT)}
    assert {"README.md", "docs/troubleshooting.md", "__main__.py", "components/cli/docs.py"} <= scanned
    assert "CHANGELOG.md" not in scanned


# A citation of the domain notes the package was written from: a file outside the repository, so a reader cannot follow
# it. Cite the primary source instead (repository + path, a page, an issue). Not DNS_SUBDOMAIN and the like.
NOTES = re.compile(r"\bDOMAIN(?:\.md\b|\s*§|\)|'s\b|\s+review\b)")
# Files still citing them (the list only shrinks; it is empty now, and the test keeps it so).
NOT_YET: set[str] = set()


def test_the_scan_finds_a_citation_of_the_notes():
    notes = "DOMAIN"  # apart, so that this file does not cite them itself
    cited = [f"({notes} §5)", f"as {notes}.md describes", f"(AKS's device plugin, {notes})", f"as {notes}'s review read it",
             f"({notes} review; featuregates.go)"]
    assert all(NOTES.search(text) for text in cited)
    assert not any(NOTES.search(text) for text in ("DNS_SUBDOMAIN", "_COMPUTE_DOMAIN_CLASSES", "the driver's domain"))


def test_nothing_cites_notes_outside_the_repository():
    citing = {path.relative_to(ROOT).as_posix() for path in documents(ROOT)
              if NOTES.search(path.read_text(encoding="utf-8", errors="replace"))}
    assert citing <= NOT_YET, "cite the primary source, not the domain notes: " + ", ".join(sorted(citing - NOT_YET))


# --- relative links ------------------------------------------------------------------------------------------------------
# A markdown link or image: [text](target) / ![alt](target); the target ends at the first space or parenthesis.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    return "".join(ch for ch in heading.strip().lower() if ch.isalnum() or ch in " -_").replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors of a markdown text's headings (outside code fences)."""
    return {slug(line.lstrip("#")) for line in FENCE.sub("", text).splitlines() if line.startswith("#")}


def broken_links(path: Path) -> list[str]:
    """The relative links of a markdown file whose file, or heading within it, does not exist."""
    text = path.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(CODE_SPAN.sub("", FENCE.sub("", text))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto: and the like
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text(encoding="utf-8")):
            broken.append(f"{target}: no such heading")
    return broken


def test_the_link_check_finds_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "a.md").write_text("# Top\n\n## `verify --fleet`: every member\n", encoding="utf-8")
    page = tmp_path / "b.md"
    page.write_text("[ok](a.md#verify---fleet-every-member) [gone](c.md) [bad](a.md#nowhere) [self](#here)\n"
                    "[web](https://example.com/x.md) `[code](e.md)`\n\n## Here\n\n```\n[not a link](d.md)\n```\n",
                    encoding="utf-8")
    assert broken_links(page) == ["c.md: no such file", "a.md#nowhere: no such heading"]


def test_every_relative_link_in_the_readme_and_docs_resolves():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = [f"{page.relative_to(ROOT)}: {link}" for page in pages for link in broken_links(page)]
    assert broken == [], "these links lead nowhere:\n" + "\n".join(broken)


def test_the_fleet_upgrade_flow_links_the_gate_automation():
    text = (ROOT / "docs/fleet.md").read_text(encoding="utf-8")
    flow = text.split("## The upgrade flow", 1)[1].split("\n## ", 1)[0]
    assert "(fleet-rollout.md#the-flow)" in flow
