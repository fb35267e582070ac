"""Seeing the GPUs: managed Prometheus wiring (workspace, data collection endpoint and rule, the rule's association,
recording and alert rule groups, optional Managed Grafana), `GpuMetrics` (NVIDIA's dcgm-exporter with DRA
attribution), the scrape objects, the rules as data, the Grafana dashboard generated from the package's own
metric list, and the PromQL that measures what workloads use of their slices (`usage_queries`, which `rightsize` and
the dashboard share).

May import `config`, `catalog`, `kubernetes` (the one tolerations function, the explicit-provider check) and the
Pulumi SDKs, each SDK module only inside the component that needs it; never `azure`, `offline`, `host` or the CLI.
"""
