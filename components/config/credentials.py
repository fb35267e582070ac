"""Credentials written in plain text: values that look like one, found by their shape or by the key they sit under.

A stack file's plain value lands in the plan, the state, every `diff` and the PR comment; a credential belongs in a
`secure:` value (`pulumi config set --secret --path`). This module decides, purely, which values look like one:

- by shape alone, under any key: an Azure Storage or Service Bus connection string (``AccountKey=``,
  ``SharedAccessKey=``), a SAS token (``sig=``), a JWT, a PEM private key, a URL with a password, a GitHub token, an
  AWS access key ID, an Entra ID client secret (its ``Q~`` form);
- by key and value together: a password-like key (``password``, ``passwd``, ``pwd``) with any value of
  `MIN_PASSWORD` characters or more, or a key naming a secret (``secret``, ``token``, ``apiKey``, ``connectionString``,
  ``sas``, ``credential``, ``accessKey``, ``…Key``) with a value that looks random (long, mixed, not a name).

Keys that name a reference to a secret rather than the secret (``existingSecret``, ``secretName``, ``tokenFile``,
``passwordRef``...) and public material (SSH public keys, certificates, public keys) are not credentials. A value is
never returned or quoted, only its path and what it looks like.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

MIN_PASSWORD = 6
MIN_RANDOM = 16
SECRET_SHOWN = "[secret]"

# (what it looks like, the pattern), checked under any key.
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an Azure connection string with a key", re.compile(r"(?i)\b(AccountKey|SharedAccessKey)=[^;\s]{8,}")),
    ("an Azure SAS token", re.compile(r"(?i)(SharedAccessSignature=|[?&]sig=)[A-Za-z0-9%+/=]{10,}")),
    ("a JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("a PEM private key", re.compile(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----")),
    ("a URL with a password", re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@")),
    ("a GitHub token", re.compile(r"\b(gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})")),
    ("an AWS access key ID", re.compile(r"\b(AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("an Entra ID client secret",
     re.compile(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])")),
)
_PASSWORD_WORDS = ("password", "passwd", "passphrase", "pwd")
_SECRET_WORDS = ("secret", "secrets", "token", "sas", "credential", "credentials", "connstr")
_SECRET_JOINED = ("apikey", "accesskey", "accountkey", "privatekey", "signingkey", "connectionstring", "clientsecret",
                  "sastoken")
# A key with one of these words names where a secret is kept, or a setting about it, not the secret itself.
_REFERENCE_WORDS = ("name", "ref", "file", "path", "enabled", "existing", "type", "ttl", "expir", "length", "rotation",
                    "policy", "url", "uri", "endpoint", "audience", "issuer", "header", "mount", "provider", "store",
                    "vault", "id", "count", "days", "format", "version", "mode", "kind")
_PUBLIC = re.compile(r"^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-|sk-ssh-|-----BEGIN (CERTIFICATE|PUBLIC KEY|SSH2 PUBLIC))")
_NAME_LIKE = re.compile(r"^[a-z][a-z0-9]*([-_.][a-z0-9]+)*$")  # a name, a word: no credential


@dataclass(frozen=True)
class Credential:
    """A value that looks like a credential: where it is (the path the user wrote) and what it looks like."""

    path: str
    looks_like: str
    parts: tuple[str | int, ...] = ()  # the path's keys and indexes, for `config_path`
    value: Any = field(default=None, repr=False, compare=False)  # the text itself: kept secret, never shown


def _words(key: str) -> list[str]:
    """A key's words, lower case: `dbPassword`, `db-password`, `DB_PASSWORD` -> ['db', 'password']."""
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", key)]


def _entropy(text: str) -> float:
    """Shannon entropy per character."""
    return -sum(n / len(text) * math.log2(n / len(text)) for n in (text.count(c) for c in set(text)))


def _random_looking(value: str) -> bool:
    """A value that reads like generated key material: long, no spaces, not a name, mixed and varied characters."""
    if len(value) < MIN_RANDOM or " " in value or _NAME_LIKE.match(value):
        return False
    classes = sum(bool(re.search(p, value)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[^A-Za-z0-9]"))
    return classes >= 3 and _entropy(value) >= 3.5


def looks_like(key: str, value: Any) -> str | None:
    """What a value under `key` looks like if it is a credential (e.g. 'a password'), else None."""
    if not isinstance(value, str) or not value or value == SECRET_SHOWN or _PUBLIC.match(value.strip()):
        return None
    for what, pattern in _SHAPES:
        if pattern.search(value):
            return what
    words = _words(key)
    joined = "".join(words)
    if any(w in _REFERENCE_WORDS or w.startswith(("expir", "rotat")) for w in words):
        return None  # `secretName`, `tokenFile`, `existingSecret`: where it is, not what it is
    if any(w in _PASSWORD_WORDS for w in words) or joined.endswith("password"):
        return "a password" if len(value) >= MIN_PASSWORD and not value.startswith("${") else None
    named = any(w in _SECRET_WORDS for w in words) or any(s in joined for s in _SECRET_JOINED)
    if (named or (words and words[-1] == "key")) and _random_looking(value):
        return "a secret key or token"
    return None


def plain_credentials(value: Any, path: str) -> list[Credential]:
    """Every value inside `value` (a section's data, found at the config key `path`) that looks like a credential."""
    return [Credential(_shown(parts), what, parts, leaf) for parts, key, leaf in _leaves(value, (path,), path)
            if (what := looks_like(key, leaf)) is not None]


def _leaves(value: Any, parts: tuple[str | int, ...], key: str) -> Iterator[tuple[tuple[str | int, ...], str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*parts, str(k)), str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, (*parts, i), key)
    else:
        yield parts, key, value


def _shown(parts: tuple[str | int, ...]) -> str:
    """A path as this package's messages write it: `cluster.tags.db-password`, `gpuPools[0].labels.x`."""
    return "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(parts))


def config_path(parts: tuple[str | int, ...]) -> str:
    """A path as `pulumi config set --path` parses it: a key that is not a plain name in brackets and quotes
    (pulumi/pulumi `sdk/go/common/resource/properties_path.go`, ParsePropertyPath)."""
    shown = ""
    for part in parts:
        if isinstance(part, int):
            shown += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$-]*", part):
            shown += f".{part}" if shown else part
        else:
            shown += '["' + part.replace('"', '\\"') + '"]'
    return shown


def credential_warning(found: Credential, project: str, stack: str = "") -> str:
    """What a plain credential is told: where, what it looks like, and the command that makes it a secret."""
    on = f" --stack {stack}" if stack else ""
    key = f"{project}:{config_path(found.parts or (found.path,))}"
    return (f"{found.path}: looks like {found.looks_like}, written in plain text: it shows in the plan, the state and "
            f"every diff; make it a secret: pulumi config set{on} --secret --path '{key}' "
            "<value> (the stack file then holds it as secure: ...)")


def config_credentials(config: Mapping[str, Any], project: str, secret_keys: Collection[str] = ()) -> list[Credential]:
    """The plain credentials of a flat Pulumi config map's keys in `project`'s namespace (values JSON or plain). A
    secret key is skipped unless its secure values are known one by one (offline they are the placeholder): in a real
    run the program sees a secret key's values decrypted, and cannot tell the secure one from its neighbours."""
    import json

    found: list[Credential] = []
    for full, raw in config.items():
        namespace, _, key = str(full).partition(":")
        if namespace != project:
            continue
        try:
            value = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            value = raw
        if full in secret_keys and SECRET_SHOWN not in json.dumps(value, default=str):
            continue
        found += plain_credentials(value, key)
    return found
