"""The review of a plan: what a reviewer reads before `pulumi up`, built on the offline engine's plan documents.

- ``diff``: two plans compared as an update preview would (``diff_values``, ``equal``: lists by identity), what each
  change does (``replacement_rules`` over ``rules/``, one module per provider, each rule sourced; ``upgrade_rules`` for
  versions), how each replacement is executed (``replacement``: one decision, from which the header, the note and the
  advice are written), what a reviewer must know (``diff_warnings``), the document (``diff_model``) and its text
  (``diff_text``); which DeviceClass serves each extended resource name before and after (``extended_names``);
  ``plan_input`` reads a plan document someone hands to ``diff``
- ``critical_path``: how long a first `pulumi up` takes (``provisioning_times``, ``waits``, ``pool_order``)
- ``fleet``, ``fleet_rollout``: a fleet's stacks in one review (a line per member, its GPU cost at its region's
  prices) and its timings (first `up`, an update run's stages); they call the single-stack diff and critical path
- ``tree`` and ``mermaid``: the plan for people; they sit here because the tree's rows come from the rule table (the
  settings whose change replaces a resource), and the graph draws the same waits the critical path follows

Reads plans, never runs a program. May import `offline` (the plan document, its urns, bounded file reading), `config`,
`catalog`, `sizing`'s prices and the pure `kubernetes.chart_upgrades` (which chart moves are refused); `offline` never
imports it (arrows point down: review on top of the plan document). Imported by `cli` only.
"""
