"""Credentials written in plain text: values that look like one, found by their shape or by the key they sit under,
and map keys that look like one by their shape.

A stack file's plain value lands in the plan, the state, every `diff` and the PR comment; a credential belongs in a
`secure:` value (`pulumi config set --secret --path`). This module decides, purely, which values look like one:

- by shape alone, under any key: an Azure Storage or Service Bus connection string (``AccountKey=``,
  ``SharedAccessKey=``), a SAS token (``sig=``), a JWT, a PEM private key, a URL with a password, a GitHub token, an
  AWS access key ID, an Entra ID client secret (its ``Q~`` form);
- by key and value together: a password-like key (``password``, ``passwd``, ``pwd``) with any value of
  `MIN_PASSWORD` characters or digits or more, or a key naming a secret (``secret``, ``token``, ``apiKey``,
  ``connectionString``, ``sas``, ``credential``, ``accessKey``, ``…Key``) with a value that looks random (long, mixed,
  not a name);
- a map's key by its shape alone (a tag named ``AccountKey=…``, a GitHub token, a JWT): Pulumi encrypts values only,
  so such a key can never be made secure where it is.

Keys that name a reference to a secret rather than the secret (``existingSecret``, ``secretName``, ``tokenFile``,
``passwordRef``...) and public material (SSH public keys, certificates, public keys) are not credentials. A value is
never returned or quoted, only its path and what it looks like; an error never quotes anything under a key that names
a credential, whatever it looks like (`never_shown`).
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

MIN_PASSWORD = 6
MIN_RANDOM = 16
SECRET_SHOWN = "[secret]"
CREDENTIAL_SHOWN = "(not shown: looks like a credential)"  # in place of one that plain text carries, in a printed value

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
    """A value (or a map's key) that looks like a credential: where it is, as the user wrote the path, and what it
    looks like. A key is never part of its own path: `path` and `parts` then name the map that holds it."""

    path: str
    looks_like: str
    parts: tuple[str | int, ...] = field(default=(), repr=False)  # the path's keys and indexes, for a command
    value: Any = field(default=None, repr=False, compare=False)  # the text itself: kept secret, never shown
    key: bool = False  # the credential is a map's key (which Pulumi never encrypts), not a value


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


def _named(key: str) -> str | None:
    """What a key says its value is: 'password', 'secret' (a secret, token, API key...), 'key' (a word ending in key),
    or None, also for a key that names where a secret is kept (`secretName`, `tokenFile`, `existingSecret`)."""
    words = _words(key)
    joined = "".join(words)
    if any(w in _REFERENCE_WORDS or w.startswith(("expir", "rotat")) for w in words):
        return None
    if any(w in _PASSWORD_WORDS for w in words) or joined.endswith("password"):
        return "password"
    if any(w in _SECRET_WORDS for w in words) or any(s in joined for s in _SECRET_JOINED):
        return "secret"
    return "key" if words and words[-1] == "key" else None


def names_credential(key: Any) -> bool:
    """Whether a key says its value is a credential (`dbPassword`, `apiToken`, `storageKey`; not `key` alone, not a
    public key): an error never shows a value under it, at any depth."""
    if not isinstance(key, str):
        return False
    named = _named(key)
    words = _words(key)
    return named in ("password", "secret") or (named == "key" and len(words) > 1 and "public" not in words)


def key_looks_like(key: Any) -> str | None:
    """What a map's key looks like if it is a credential by its shape alone (a tag named `AccountKey=...`, a GitHub
    token, a JWT), else None: a key is only ever judged by its shape."""
    if not isinstance(key, str):
        return None
    return next((what for what, pattern in _SHAPES if pattern.search(key)), None)


def looks_like(key: str, value: Any) -> str | None:
    """What a value under `key` looks like if it is a credential (e.g. 'a password'), else None. A number counts under
    a key naming one (`password: 98765432109876`, a hex `0x...` that YAML reads as a number)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    if not isinstance(value, str):
        digits = len(str(value).lstrip("-"))
        named = _named(key)
        if named == "password":
            return "a password" if digits >= MIN_PASSWORD else None
        return "a secret key or token" if named in ("secret", "key") and digits >= MIN_RANDOM else None
    if not value or value == SECRET_SHOWN or _PUBLIC.match(value.strip()):
        return None
    found = key_looks_like(value)
    if found:
        return found
    named = _named(key)
    if named == "password":
        return "a password" if len(value) >= MIN_PASSWORD and not value.startswith("${") else None
    return "a secret key or token" if named is not None and _random_looking(value) else None


def plain_credentials(value: Any, path: str) -> list[Credential]:
    """Every value, and every map's key, inside `value` (a section's data, found at the config key `path`) that looks
    like a credential."""
    found = []
    for parts, key, leaf, is_key in _leaves(value, (path,), path):
        what = key_looks_like(leaf) if is_key else looks_like(key, leaf)
        if what is not None:
            found.append(Credential(shown_path(parts), what, parts, leaf, is_key))
    return found


def without_credentials(value: Any, key: str, mark: str) -> Any:
    """The value (found under `key`) with every part that looks like a credential written in plain text shown as
    `mark`, and every map key that does renamed to it (numbered where a map has several): what a diff, a PR comment or
    a suggested stack section prints must not carry one. The value itself is left as it is."""
    found = plain_credentials({key: value}, "")
    if not found:
        return value
    holder = {key: copy.deepcopy(value)}
    # Values first, then keys, the deepest first: a key renamed never moves a credential still to be found under it.
    for credential in sorted(found, key=lambda c: (c.key, -len(c.parts))):
        parent: Any = holder
        for part in credential.parts[1:] if credential.key else credential.parts[1:-1]:
            parent = parent[part]
        if credential.key:
            shown = next(m for n in range(1, len(parent) + 2) if (m := mark if n == 1 else f"{mark} {n}") not in parent)
            parent[shown] = parent.pop(credential.value)
        else:
            parent[credential.parts[-1]] = mark
    return holder[key]


def _leaves(value: Any, parts: tuple[str | int, ...], key: str
            ) -> Iterator[tuple[tuple[str | int, ...], str, Any, bool]]:
    """(path, key, leaf, whether the leaf is a key) for every leaf and every map's key; a key's path is its map's."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield parts, str(k), k, True
            yield from _leaves(v, (*parts, str(k)), str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, (*parts, i), key)
    else:
        yield parts, key, value, False


def never_shown(value: Any, under: bool = False) -> list[Any]:
    """Everything inside `value` that an error must never quote: each credential (a value or a key) and every text or
    number under a key naming one, whatever it looks like (a 5-character password, a number, a list)."""
    found: list[Any] = []
    stack: list[tuple[Any, bool]] = [(value, under)]
    while stack:
        node, hidden = stack.pop()
        if isinstance(node, dict):
            for k, v in node.items():
                if key_looks_like(k):
                    found.append(k)
                stack.append((v, hidden or names_credential(k)))
        elif isinstance(node, (list, tuple)):
            stack.extend((v, hidden) for v in node)
        elif hidden and not isinstance(node, bool) and isinstance(node, (str, int, float)):
            found.append(node)
    return found + [c.value for c in plain_credentials(value, "") if not c.key]


def hides(parts: tuple[Any, ...]) -> bool:
    """Whether a key path leads to (or through) something never shown: a key that looks like a credential, or a value
    under a key naming one."""
    return any(key_looks_like(p) or names_credential(p) for p in parts)


def shown_path(parts: tuple[str | int, ...]) -> str:
    """A path as this package's messages write it (`cluster.tags.db-password`, `gpuPools[0].labels.x`), with a key
    that looks like a credential shown as ``[secret]``."""
    shown = ""
    for i, part in enumerate(parts):
        if isinstance(part, int):
            shown += f"[{part}]"
        else:
            text = SECRET_SHOWN if key_looks_like(part) else part
            shown += f".{text}" if i else text
    return shown


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
        what = key_looks_like(key)
        if what:  # the config key itself: never part of a path shown
            found.append(Credential("", what, (), key, True))
        found += plain_credentials(value, key)
    return found
