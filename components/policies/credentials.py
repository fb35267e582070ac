"""No credential written in plain text in a stack's settings (mandatory): a password, key or token belongs in a `secure:`
value (`pulumi config set --secret --path`), or it shows in the plan, the state, every diff and the PR comment.

The check reads the stack file, not resource inputs: the policy engine hands a pack every secret already decrypted
(pulumi_policy `deserialize_properties` unwraps the secret signature), so a check of values in inputs would also refuse
a value the user did make secure. In the stack file a `secure:` leaf is still ciphertext; the offline reader turns it
into the secret placeholder, which `config_credentials` never takes for a credential. Which values look like one, and
the message (the key path and the command, never the value), are `config.credentials`'s.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ..config.credential_advice import credential_warning
from ..config.credentials import config_credentials

NO_PLAIN_CREDENTIALS = "no-plain-credentials"
"""The stack-wide policy: no setting of the stack file holds a credential in plain text."""
NO_PLAIN_CREDENTIALS_DESCRIPTION = (
    "No stack setting holds a credential (password, key, token, connection string) in plain text: it is a secure value "
    "(pulumi config set --secret --path)."
)


def check_plain_credentials(config: Mapping[str, Any], secrets: Collection[str], project: str, stack: str) -> list[str]:
    """One message per plain credential in a stack file's config map (namespaced keys, `secure:` values as the secret
    placeholder; `secrets` its secret keys): the key path and the `pulumi config set --secret --path` command."""
    # Each once: a value under a key that looks like a credential is told about that key, as the key itself is.
    return list(dict.fromkeys(credential_warning(found, project, stack)
                              for found in config_credentials(config, project, secrets)))
