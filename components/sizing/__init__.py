"""The sizing planner: which GPU slices (NVadsA10_v5 vGPU slices, or MIG slices of the A100, H100 and H200 sizes), how
many nodes and what they cost for a set of workloads, asked for by the memory they need or by the slice they mean.
`planner` (pure) ties together `model` (the data types, importing nothing of the planner), `placement` (one
workload's A10 slice, pools and tolerations), `families` (the MIG slice, and both families compared at the region's
prices), `stack_pools` (a stack's pools checked one by one, and the gpuPools that would fit, kept as written), `cost`,
`packing` (slices shared by memory, compared with the plan) and `regions` (the plan at other regions' prices) into a
`plan.SizingPlan`; `report` prints it as text, Markdown or JSON (with `shared_report`, `family_report` and `tables`),
and `command` is the `size` command (its `--workloads` file: `workloads_file`). `extended` says which slices an
extended resource name gives (its DeviceClass's, and only those: `model.Workload.served_by`).

May import `config`, `catalog` and the pure parts of `kubernetes` (selectors, slice kinds, claim template names,
tolerations, the allocator's consumable-capacity rule); `command` alone reads stacks through `offline`.
"""
