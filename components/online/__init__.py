"""What the online commands share to reach Azure: one credential (azure-identity's) and one filter that keeps tokens out
of everything printed.

`fleet-rollout` and `preflight` talk to Azure Resource Manager and `rightsize` to Azure Monitor's Prometheus; each asks
`credential.azure_credential` for a token credential and `credential.bearer_token` for a token, bounded by the command's
deadline, and passes every text it prints through `masking.mask`; `endpoints` says which ARM a token may be sent to
(https, or plain http on loopback for a test double) and for which scope. azure-identity is imported on first use, never
by an offline command.

Imports nothing of the package: config, catalog and the engine stay out of it, and it stays out of them.
"""
