"""The multi-language plugin: how the folder tells "plugin" from "program" (`plugin`), the component table other
languages get (`hosted`), the package schema generated from the config models and output declarations (`contract`,
committed as `schema.json`), and the gRPC host that serves it and builds the package's own components (`server`).

Sits on top: may import every component subpackage and `config`; nothing imports it but the root `__main__.py` and the
docs command (which regenerates `schema.json`).
"""
