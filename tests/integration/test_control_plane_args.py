"""The control plane helper's pure parts, tested without any binary: the flags, the kubeconfig, the skip reason."""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.controlplane import (
    ASSETS_ENV,
    apiserver_args,
    assets,
    controller_manager_args,
    etcd_args,
    kubeconfig_text,
    without_lifecycle_taints,
)


def flags(args: list[str]) -> dict[str, str]:
    return dict(a.removeprefix("--").split("=", 1) for a in args)


def test_the_api_server_listens_on_loopback_only_with_envtests_flags(tmp_path):
    args = flags(apiserver_args(tmp_path / "certs", "http://127.0.0.1:2379", 6443, tmp_path / "k", tmp_path / "p",
                                tmp_path / "t.csv"))
    assert args["bind-address"] == args["advertise-address"] == "127.0.0.1" and args["secure-port"] == "6443"
    assert args["etcd-servers"] == "http://127.0.0.1:2379" and args["cert-dir"] == str(tmp_path / "certs")
    assert args["service-account-issuer"] == "https://127.0.0.1:6443/"
    assert args["service-account-signing-key-file"] == str(tmp_path / "k")
    assert args["service-account-key-file"] == str(tmp_path / "p")
    assert args["authorization-mode"] == "RBAC" and args["token-auth-file"] == str(tmp_path / "t.csv")
    assert args["enable-priority-and-fairness"] == "false" and args["runtime-config"] == "resource.k8s.io/v1=true"
    assert args["disable-admission-plugins"] == "ServiceAccount"
    assert "insecure-port" not in args  # gone since 1.24


def test_etcd_and_the_controllers(tmp_path):
    args = flags(etcd_args(tmp_path, 1111, 2222))
    assert args["listen-client-urls"] == args["advertise-client-urls"] == "http://127.0.0.1:1111"
    assert args["listen-peer-urls"] == "http://127.0.0.1:2222" and args["data-dir"] == str(tmp_path)
    cm = flags(controller_manager_args(Path("/k"), 3333))
    assert cm["controllers"] == "daemonset-controller,resourceclaim-controller" and cm["leader-elect"] == "false"
    assert cm["kubeconfig"] == cm["authentication-kubeconfig"] == "/k" and cm["bind-address"] == "127.0.0.1"


def test_the_kubeconfig_names_the_loopback_server_and_the_admin_token():
    config = json.loads(kubeconfig_text(4444, "tok"))
    assert config["clusters"][0]["cluster"]["server"] == "https://127.0.0.1:4444"
    assert config["users"][0]["user"] == {"token": "tok"}


def test_without_binaries_the_reason_says_how_to_get_them(tmp_path):
    folder, why = assets({})
    assert folder is None and ASSETS_ENV in why and "setup-envtest use 1.36.x -p path" in why
    folder, why = assets({ASSETS_ENV: str(tmp_path)})
    assert folder is None and "has no etcd, kube-apiserver" in why
    for name in ("etcd", "kube-apiserver"):
        (tmp_path / name).write_text("#!/bin/sh\n")
        (tmp_path / name).chmod(0o755)
    assert assets({ASSETS_ENV: str(tmp_path)}) == (tmp_path, "")


def test_the_lifecycle_taints_are_lifted_and_the_pools_own_kept():
    # As kube-apiserver 1.36 creates a node of a tainted GPU pool: TaintNodesByCondition adds not-ready on create.
    node = {"spec": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
                                {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}]}}
    assert without_lifecycle_taints(node) == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    lifecycle_only = {"spec": {"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"},
                                          {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]}}
    assert without_lifecycle_taints(lifecycle_only) is None
    assert without_lifecycle_taints({"spec": {}}) is None
