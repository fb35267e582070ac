"""`diff`: two plan documents compared as an update preview would; exit 3 on changes, 4 on a change that would fail."""

from __future__ import annotations

import argparse
import sys

from .output import BadInputError, bad_input_document, json_on_bad_input, printable_lines, write


def cmd_diff(args: argparse.Namespace) -> int:
    """`diff`: added / changed / replaced / deleted resources between two plans (`--fleet`: two folders of them); with
    --json, bad input is a JSON document too (and its lines on stderr)."""
    return json_on_bad_input(_diff, bad_input_document, sort_keys=True)(args)


def _diff(args: argparse.Namespace) -> int:
    if getattr(args, "fleet", False):
        from .fleet import cmd_diff_fleet

        return cmd_diff_fleet(args)
    import json

    from ..review.diff import diff_plans
    from ..review.diff_text import format_diff
    from ..review.plan_input import PlanDocumentError, read_plan

    try:
        old, new = read_plan(args.old), read_plan(args.new)
        result = diff_plans(old, new)
    except PlanDocumentError as exc:
        raise BadInputError(exc.lines) from None
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        # A document that passed the shape check but still trips the diff: a bad plan all the same.
        raise BadInputError([f"not a plan document the diff can read ({type(exc).__name__}: {exc}); make plans with "
                             "`plan --json`"]) from None
    from ..review.equal import json_safe

    doc = json_safe(result.to_dict())  # strict JSON even when a plan held NaN
    text = json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n" if args.json else printable_lines(
        format_diff(result))
    write(sys.stdout, text)
    return result.exit_status  # 0 no change, 3 changes, 4 a change that would fail or must not be applied
