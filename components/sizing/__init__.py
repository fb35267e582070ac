"""The sizing planner: which NVadsA10_v5 sizes, how many nodes and what they cost for a set of workloads (`planner`,
pure), its text/Markdown/JSON reports (`report`) and the `size` command (`command`).

May import `config`, `catalog` and the pure parts of `kubernetes` (selectors, claim template names, tolerations);
`command` alone reads stacks through `offline`.
"""
