"""A kubeconfig's `exec` credential plugin (kubelogin for Entra ID clusters), run by `verify` itself, bounded by its
deadline.

Why not let the Kubernetes client run it: its `ExecProvider.run` (kubernetes-client/python `kubernetes/config/
exec_provider.py`) waits on `process.communicate()` with no timeout, so a plugin waiting for an interactive login
holds `verify --timeout 10` for as long as it likes; and `KubeConfigLoader._load_from_exec_plugin` (`kube_config.py`)
catches every failure, a missing command included, and reports it through `logging.error`, which prints raw
`ERROR:root:` lines and then goes on without credentials. Here the plugin runs as that provider runs it (the
ExecCredential protocol of client-go, kubernetes/kubernetes `staging/src/k8s.io/client-go/plugin/pkg/client/auth/exec/
exec.go`: `KUBERNETES_EXEC_INFO` in its environment, the kubeconfig's folder as its working folder, `status.token` or
`status.clientCertificateData` + `clientKeyData` on stdout), killed at the deadline, and what it returns is handed to
the client as the user's static credentials.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
from typing import Any

CURRENT_CONTEXT = "current-context"
EXEC_TIMEOUT = 60.0  # without a deadline: kubectl waits as long as the plugin takes; verify does not


class ExecPluginError(Exception):
    """The credential plugin is missing, failed, hung or answered nonsense: one line naming its command."""


def context_user(config: dict[str, Any], context: str | None) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(the user entry, the cluster entry) of the named (or current) context, as the kubeconfig writes them."""
    name = context or config.get(CURRENT_CONTEXT)
    ctx = next((c.get("context") or {} for c in config.get("contexts") or [] if c.get("name") == name), None)
    if ctx is None:
        return None, None
    user = next((u for u in config.get("users") or [] if u.get("name") == ctx.get("user")), None)
    cluster = next((c for c in config.get("clusters") or [] if c.get("name") == ctx.get("cluster")), None)
    return user, cluster


def _command(command: str, folder: str) -> str | None:
    """The executable the plugin's command names, or None: a path is taken from the kubeconfig's folder (Popen's cwd),
    a bare name from PATH."""
    if os.sep in command or (os.altsep and os.altsep in command):
        path = os.path.join(folder, command)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return shutil.which(command)


def run_exec_plugin(spec: dict[str, Any], cluster: dict[str, Any] | None, folder: str, timeout: float) -> dict[str, Any]:
    """Runs the `exec` section of a kubeconfig user; its ExecCredential `status`. ExecPluginError when the command is
    not installed, exits non-zero, says nothing usable, or has not answered within `timeout` seconds (then killed)."""
    command = str(spec.get("command") or "")
    if not command:
        raise ExecPluginError("the kubeconfig's exec user names no command")
    found = _command(command, folder)
    if found is None:
        raise ExecPluginError(f"the kubeconfig's credential plugin '{command}' is not installed (not found on PATH); "
                              f"install it or get a kubeconfig without it")
    env = dict(os.environ)
    env.update({str(e.get("name")): str(e.get("value")) for e in spec.get("env") or [] if isinstance(e, dict)})
    info: dict[str, Any] = {"apiVersion": spec.get("apiVersion"), "kind": "ExecCredential",
                            "spec": {"interactive": False}}
    if spec.get("provideClusterInfo") and cluster:
        info["spec"]["cluster"] = cluster.get("cluster") or {}
    env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
    argv = [found, *[str(a) for a in spec.get("args") or []]]
    try:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   cwd=folder or None, env=env, text=True, start_new_session=os.name == "posix")
    except OSError as exc:
        raise ExecPluginError(f"the kubeconfig's credential plugin '{command}' cannot run: {exc.strerror}") from None
    try:
        out, err = process.communicate(timeout=max(0.0, timeout))
    except subprocess.TimeoutExpired:
        _kill(process)
        raise ExecPluginError(f"the kubeconfig's credential plugin '{command}' did not answer within {timeout:.3g} s "
                              "(is it waiting for an interactive login? log in once in a terminal, or use a "
                              "non-interactive login)") from None
    if process.returncode != 0:
        why = " ".join((err or "").split())[:300] or f"exit {process.returncode}"
        raise ExecPluginError(f"the kubeconfig's credential plugin '{command}' failed: {why}")
    try:
        status = json.loads(out)["status"]
    except (ValueError, KeyError, TypeError):
        raise ExecPluginError(f"the kubeconfig's credential plugin '{command}' printed no ExecCredential") from None
    if not isinstance(status, dict) or not (status.get("token") or (
            status.get("clientCertificateData") and status.get("clientKeyData"))):
        raise ExecPluginError(f"the kubeconfig's credential plugin '{command}' returned neither a token nor a client "
                              "certificate and key")
    return status


def _kill(process: subprocess.Popen[str]) -> None:
    """Ends the plugin and whatever it started (its own session on POSIX): a child left holding its stdout would keep
    `communicate` waiting."""
    if os.name == "posix":
        with contextlib.suppress(OSError):  # gone already
            os.killpg(process.pid, 9)
    process.kill()
    process.communicate()


def static_user(status: dict[str, Any]) -> dict[str, Any]:
    """The kubeconfig user standing in for the plugin: its token, or its certificate and key (PEM, as the
    ExecCredential carries them; base64 as a kubeconfig's `*-data` fields do)."""
    if status.get("token"):
        return {"token": str(status["token"])}
    return {key: base64.b64encode(str(status[field]).encode()).decode()
            for key, field in (("client-certificate-data", "clientCertificateData"),
                               ("client-key-data", "clientKeyData"))}


PATH_KEYS = ("certificate-authority", "client-certificate", "client-key", "tokenFile")


def with_static_user(config: dict[str, Any], context: str | None, folder: str, timeout: float) -> dict[str, Any] | None:
    """The kubeconfig with the context's exec user replaced by the credentials its plugin returned (relative file
    paths made absolute from the kubeconfig's folder, as the client resolves them), or None when the user has no
    `exec` (the client loads it as it is)."""
    user, cluster = context_user(config, context)
    spec = (user or {}).get("user") or {}
    if not isinstance(spec, dict) or not isinstance(spec.get("exec"), dict):
        return None
    status = run_exec_plugin(spec["exec"], cluster, folder, timeout)
    rewritten = dict(config)
    rewritten["users"] = [{"name": u.get("name"), "user": static_user(status)} if u is user else u
                          for u in config.get("users") or []]
    rewritten["clusters"] = [_absolute(c, "cluster", folder) for c in config.get("clusters") or []]
    return rewritten


def _absolute(entry: dict[str, Any], key: str, folder: str) -> dict[str, Any]:
    body = dict(entry.get(key) or {})
    for name in PATH_KEYS:
        if isinstance(body.get(name), str) and body[name] and not os.path.isabs(body[name]):
            body[name] = os.path.join(folder, body[name])
    return {**entry, key: body}
