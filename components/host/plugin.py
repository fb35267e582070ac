"""How this folder is started: as the stack's program, or as the plugin that serves its components to other languages.

Pulumi starts the repository folder both ways and always through its ``__main__.py`` (PulumiPlugin.yaml has no
``main``: pulumi/pulumi `sdk/go/common/workspace/project.go`, PluginProject has only runtime and packages):

- as a program, the Python language host runs ``pulumi-language-python-exec``, which connects the SDK to the
  engine's resource monitor (``pulumi.runtime.configure(Settings(monitor=...))``) and only then runs ``__main__.py``
  (pulumi/pulumi `sdk/python/cmd/pulumi-language-python-exec`); the offline engine and the SDK's mocks do the same;
- as a plugin, it runs ``python <folder> <args>`` (`sdk/python/cmd/pulumi-language-python/main.go`, RunPlugin): the
  SDK is connected to nothing, and the last argument is the engine's address (`sdk/go/common/resource/plugin/
  provider_plugin.go` passes ``host.ServerAddr()``, after logging flags from `plugin.go` buildPluginArguments).

So a running program means "program": the runner runs ``__main__.py`` inside ``pulumi.runtime.run_in_stack``, whose
Stack resource is the root resource (public ``pulumi.runtime.get_root_resource``) while the program runs; a plugin
starts with none. Arguments alone would not do: the program's runner leaves
``sys.argv`` to the program, and the offline CLI runs it inside its own process with its own arguments; environment
variables neither: the engine hands a plugin ``PULUMI_CONFIG`` and ``PULUMI_PROJECT`` too.
"""

from __future__ import annotations

import re
import sys

ENGINE_ADDRESS = re.compile(r"[^\s:]+:\d+")
HOW_TO_RUN = (
    "this folder is a Pulumi project and a Pulumi plugin; it is not run by hand:\n"
    "  pulumi preview / pulumi up                        run it as the stack's program\n"
    "  python -m components plan --stack dev             plan a stack offline\n"
    "  python . <engine address>                         what Pulumi runs to serve the components to other languages"
)


def started_as_plugin() -> bool:
    """True when no program is running (no root Stack resource): Pulumi started the folder as a plugin."""
    import pulumi

    return pulumi.runtime.get_root_resource() is None


def serve(argv: list[str] | None = None) -> None:
    """Serves the components to the engine named in argv; without one, says how the folder is meant to run (exit 2)."""
    args = sys.argv[1:] if argv is None else argv
    if not any(ENGINE_ADDRESS.fullmatch(arg) for arg in args):
        print(HOW_TO_RUN, file=sys.stderr)
        raise SystemExit(2)
    from .server import main  # the SDKs and the gRPC server load only here

    main()
