"""The multi-language plugin: how the folder tells "plugin" from "program" (`plugin`), the schema other languages see
(`schema`), and the gRPC host that builds the package's own components for them (`server`).

Sits on top: may import every component subpackage and `config`; nothing imports it but the root `__main__.py`.
"""
