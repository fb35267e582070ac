"""DRA device selectors evaluated as Kubernetes evaluates them, with cel-python (the engine the tests use too).

Kubernetes adds `quantity()` and `Quantity.compareTo()` to CEL (k8s.io/apiserver pkg/cel/library/quantity.go) and gives
`device.attributes[domain]` / `device.capacity[domain]` as maps that are empty for an unknown domain
(k8s.io/dynamic-resource-allocation cel/compile.go); this module registers the same. A device comes in as the API's
JSON (a ResourceSlice's `spec.devices[]` entry); unqualified attribute names belong to the driver's domain.
cel-python is imported on first use: the `verify` extra installs it.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cache, total_ordering
from typing import Any

_QUANTITY = re.compile(
    r"^(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?:(?P<exponent>[eE][+-]?[0-9]+)|(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E))?$"
)
_MULTIPLIERS = {
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 10**3), None: 1,
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
}


@total_ordering
class Quantity:
    """An exact Kubernetes quantity (k8s.io/apimachinery resource.Quantity): a signed decimal number with a binary-SI,
    decimal-SI or exponent suffix."""

    def __init__(self, text: str):
        m = _QUANTITY.match(text)
        if not m:
            raise ValueError(f"{text!r} is not a Kubernetes quantity")
        number = Fraction(m["number"])
        if m["exponent"]:
            self.value = number * Fraction(10) ** int(m["exponent"][1:])
        else:
            self.value = number * _MULTIPLIERS[m["suffix"]]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)

    @property
    def mib(self) -> float:
        """The quantity in MiB (memory)."""
        return float(self.value / 2**20)


def any_quantity_mib(text: Any) -> float | None:
    """Any quantity as Kubernetes reads it (decimal or binary suffix, exponent, fraction: what a driver publishes) in
    MiB, or None when the text is not a quantity. (kubernetes.shared_slices.quantity_mib reads only the whole Gi or Mi
    the package itself writes, and raises on anything else.)"""
    try:
        return Quantity(str(text)).mib
    except ValueError:
        return None


class Semver:
    """A version attribute: not a string in Kubernetes' CEL, so string functions on it fail here too."""

    def __init__(self, text: str):
        self.text = text


class CelError(Exception):
    """A selector that does not compile, or errs on a device (in Kubernetes an error aborts the allocation)."""


def _celtypes() -> Any:
    from celpy import celtypes

    return celtypes


def cel_quantity(text: Any) -> Quantity:
    """CEL `quantity(string)`: an invalid text is an evaluation error, as in Kubernetes."""
    return Quantity(str(text))


def cel_compare_to(left: Quantity, right: Quantity) -> Any:
    """CEL `Quantity.compareTo(Quantity)`: -1, 0 or 1."""
    if not (isinstance(left, Quantity) and isinstance(right, Quantity)):
        raise TypeError("compareTo needs two quantities")
    return _celtypes().IntType((left.value > right.value) - (left.value < right.value))


FUNCTIONS = {"quantity": cel_quantity, "compareTo": cel_compare_to}
"""The Kubernetes CEL functions the package's selectors use, for `celpy.Environment.program(..., functions=)`."""


def _attribute(value: dict[str, Any]) -> Any:
    """One attribute value as CEL sees it; None for a kind this module does not model (e.g. list attributes)."""
    t = _celtypes()
    kinds = {"string": t.StringType, "int": t.IntType, "bool": t.BoolType, "version": Semver}
    for kind, raw in value.items():
        if kind in kinds:
            return kinds[kind](raw)
    return None


@cache
def _domains() -> Any:
    """`device.attributes` / `device.capacity`: a map whose unknown domain gives an empty map, as Kubernetes documents."""
    t = _celtypes()

    class Domains(t.MapType):
        def __getitem__(self, key: Any) -> Any:
            if key not in self.keys():
                return t.MapType({})
            return super().__getitem__(key)

    return Domains


def cel_device(driver: str, device: dict[str, Any]) -> Any:
    """The CEL `device` variable for one ResourceSlice device (API JSON)."""
    t = _celtypes()
    Domains = _domains()  # noqa: N806 (a class)
    attributes: dict[str, dict[Any, Any]] = {}
    for name, value in (device.get("attributes") or {}).items():
        domain, _, short = name.rpartition("/")
        converted = _attribute(value or {})
        if converted is not None:
            attributes.setdefault(domain or driver, {})[t.StringType(short)] = converted
    capacity: dict[str, dict[Any, Any]] = {}
    for name, value in (device.get("capacity") or {}).items():
        domain, _, short = name.rpartition("/")
        try:
            capacity.setdefault(domain or driver, {})[t.StringType(short)] = Quantity(str((value or {}).get("value")))
        except ValueError:
            continue  # the API server refuses such a slice; nothing to select on
    return t.MapType({
        t.StringType("driver"): t.StringType(driver),
        t.StringType("attributes"): Domains({t.StringType(d): t.MapType(v) for d, v in attributes.items()}),
        t.StringType("capacity"): Domains({t.StringType(d): t.MapType(v) for d, v in capacity.items()}),
    })


@cache
def program(expression: str) -> Any:
    """The compiled selector (once per expression); CelError when it does not compile."""
    import celpy

    env = celpy.Environment()
    try:
        return env.program(env.compile(expression), functions=FUNCTIONS)
    except Exception as exc:  # celpy raises its own parse errors; any of them means "does not compile here"
        raise CelError(f"does not compile: {' '.join(str(exc).split())[:200]}") from None


def evaluate(expression: str, device: Any) -> bool:
    """The selector's result on one device (from `cel_device`); CelError when it errs or is not a boolean."""
    import celpy

    try:
        result = program(expression).evaluate({"device": device})
    except celpy.CELEvalError as exc:
        raise CelError(f"errs: {' '.join(str(exc).split())[:200]}") from None
    if isinstance(result, celpy.CELEvalError):
        raise CelError(f"errs: {' '.join(str(result).split())[:200]}")
    if not isinstance(result, _celtypes().BoolType):
        raise CelError(f"gives {type(result).__name__}, not a boolean")
    return bool(result)


def selects(expressions: list[str], driver: str, device: dict[str, Any]) -> bool:
    """Whether every expression (a class's and a request's selectors) selects this device; CelError on an error."""
    cel = cel_device(driver, device)
    return all(evaluate(e, cel) for e in expressions)
