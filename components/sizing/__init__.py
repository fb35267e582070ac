"""The sizing planner: which NVadsA10_v5 sizes, how many nodes and what they cost for a set of workloads, asked for by
the memory they need or by the slice they mean. `planner` (pure) ties together `model` (the data), `placement` (one
workload's slice, pools and tolerations), `stack_pools` (a stack's pools checked one by one, and the gpuPools that
would fit, kept as written) and `cost`; `report` prints it as text, Markdown or JSON, and `command` is the `size`
command.

May import `config`, `catalog` and the pure parts of `kubernetes` (selectors, claim template names, tolerations);
`command` alone reads stacks through `offline`.
"""
