"""`fleet-rollout`: Kubernetes and node-image upgrades across a fleet's members, proven between stages.

An update run is created through ARM at Fleet API 2026-06-01 (the first stable version with approval gates) with the
fleet stack's stages and an Approval gate after the canary (first) stage; when the gate is Pending, the canary's
members are verified (`verify`, with smoke where the stack has claim templates) and the gate is approved only when they
pass. `arm` is the one seam to Azure (plain HTTPS, a token provider); `updaterun` holds the API's paths, bodies and
states as pure functions; `flow` follows a run and decides.

May import `config`, `verify` and `online` (the credential and the mask every online command shares); never
`offline` (the engine), `azure` or the CLI.
"""
