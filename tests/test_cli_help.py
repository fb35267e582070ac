"""`--help` says what each command does and how it exits, which commands go online, one --format default and one
--fleet metavar; a comma-separated --workload is told to repeat the flag."""

from __future__ import annotations

import pytest

from components.cli import main


def help_of(capsys, *command: str) -> str:
    assert main([*command, "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps at the terminal's width


def test_the_top_line_says_which_commands_go_online(capsys) -> None:
    out = help_of(capsys)
    assert "Offline (no cloud credentials, no Pulumi CLI, nothing leaves the machine): plan, render, diff, size (unless " \
           "--subscription), docs. Online: verify (reads, and with --smoke writes to, a cluster through a kubeconfig), " \
           "fleet-rollout (Azure Resource Manager with a token, and the canary's clusters), preflight (reads quota " \
           "and VM sizes from Azure Resource Manager) and rightsize (reads a Prometheus query API)" in out
    assert "offline: no cloud credentials" not in out


@pytest.mark.parametrize("command, exits", [
    ("plan", "Exit 0 planned, 2 bad input or the program failed or ran past --timeout, 4 --policy found a mandatory "
             "policy violated"),
    ("render", "Exit 0 written, 2 bad input"),
    ("diff", "Exit 0 no change, 3 changes, 4 a change `pulumi up` would fail on or that must not be applied"),
    ("size", "Exit 0 everything fits, 3 something does not fit, 2 bad input."),
    ("docs", "Exit 0 written (or, with --check, up to date), 3 --check found a generated file out of date"),
    ("preflight", "Exit 0 enough, 4 a shortfall or a restricted size (each with the request to file), 2 bad input, no "
                  "credential, or ARM refused or unreachable."),
])
def test_every_command_has_a_description_with_its_exit_codes(command, exits, capsys) -> None:
    assert exits in help_of(capsys, command)


@pytest.mark.parametrize("command", ["plan", "verify", "fleet-rollout", "preflight"])
def test_fleet_takes_one_metavar(command, capsys) -> None:
    out = help_of(capsys, command)
    assert "--fleet FLEET_STACK" in out and "--fleet FLEET " not in out


def test_diff_fleet_says_why_it_takes_no_value(capsys) -> None:
    assert "Unlike the other commands' --fleet it takes no value: the folders' plans say which fleet stack they are" \
           in help_of(capsys, "diff")


@pytest.mark.parametrize("command, text", [
    ("plan", "text (default: the resource tree; 'tree' says the same), json or mermaid"),
    ("size", "text (default), json or markdown"),
])
def test_format_defaults_to_text_everywhere(command, text, capsys) -> None:
    assert text in help_of(capsys, command)


def test_plan_format_text_is_the_tree(capsys) -> None:
    assert main(["plan", "--stack", "dev", "--format", "text"]) == 0
    text = capsys.readouterr().out
    assert main(["plan", "--stack", "dev"]) == 0
    assert capsys.readouterr().out == text and text.startswith("aks-dra-vgpu/dev: ")


def test_a_comma_separated_workload_is_told_to_repeat_the_flag(capsys) -> None:
    assert main(["size", "--workload", "a=1,b=2x3"]) == 2
    assert "--workload 'a=1,b=2x3': one workload per --workload; repeat the flag: --workload a=1 --workload b=2x3" \
           in capsys.readouterr().err


def test_the_one_parser_of_a_process_keeps_nothing_of_the_last_run() -> None:
    # `main` builds its parser once per process: a run's repeated flags and choices never reach the next run.
    from components.cli import _parser

    first = _parser().parse_args(["verify", "--stack", "dev", "--smoke", "--size", "8", "--size", "24", "--context", "a"])
    second = _parser().parse_args(["verify", "--stack", "dev"])
    assert _parser() is _parser()
    assert (first.size, first.context, first.smoke) == ([8, 24], ["a"], True)
    assert (second.size, second.context, second.smoke) == (None, None, False)


def test_the_top_line_promises_format_only_where_it_is_and_json_documents_on_bad_input(capsys) -> None:
    out = help_of(capsys)
    assert "exit 2 bad input (one line per problem on stderr; with --json, also the command's JSON document on stdout, " \
           "its problems in it)" in out
    assert "unless --json (or, for plan and size, --format) asks otherwise" in out
    assert "--format's default" not in out
    for command in ("render", "diff", "verify", "preflight", "fleet-rollout", "docs"):
        assert "--format" not in help_of(capsys, command), command
