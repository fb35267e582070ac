"""Right-sizing from what workloads use: GPU memory measured by dcgm-exporter in a Prometheus, the slice each workload
holds and the one it needs, what both cost, and a `size --workloads` file that feeds the measured needs back into
planning (`python -m components rightsize`, docs/rightsizing.md).

Shaped like Kubernetes' VPA recommender (kubernetes/autoscaler vertical-pod-autoscaler/pkg/recommender/): `prometheus`
and `endpoint` read (the query API, bounded and capped, and its token) → `usage` (the answers as value objects per
device and pod) → `units` (rows grouped into workloads, shared claims, MIG slices and idle devices) → `verdicts` (the
slice held, the peak, the slice it needs and the verdict: pure) → `cost`, `report` and `workloads_file` (what is
printed and written). For GPU memory the base is the peak, not a percentile: a framebuffer that overflows kills the
process instead of slowing it. The PromQL lives in `observability.usage_queries`, which the dashboard shares.

May import `config`, `catalog`, `online` and the pure parts of `kubernetes` (slice kinds, selectors, claim names),
`sizing` (prices) and `observability` (the queries and counters); never `offline`, the engine, or the CLI.
"""
