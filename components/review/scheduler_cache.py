"""What a 1.36 kube-scheduler remembers of extended resource names through a sequence of DeviceClass events (pure).

kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache/
extendedresourcecache.go at v1.36.2 keeps one class per name (`resourceName2class`):
- add or update (`updateResourceName2class`): when another class holds the class's name and is newer
  (creationTimestamp), or as old with a name that sorts first (the class itself included), nothing changes; otherwise
  the class's old name is taken out of the map (whichever class held it) and the class takes its new name;
- delete (`removeResourceName2class`): the class's name is taken out of the map, **whichever class held it**.
A scheduler that starts lists every class and folds them through the add rule: the newest wins, ties by the lower name
(`steady`). kubernetes/kubernetes#141110 (1.37) recomputes the winner on delete; 1.36 does not.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any, Literal


@dataclass(frozen=True)
class LiveClass:
    """A DeviceClass as the API server holds it: its name, age (a larger one was created later), the extended
    resource name it maps (None: none, or the API server dropped it), what it selects in words, and where it comes
    from (a plan resource's key; the Release's for the chart's class)."""

    class_name: str
    age: Any
    mapped: str | None
    selects: str
    key: str


@dataclass(frozen=True)
class Event:
    """One change the scheduler's informer sees: `before` is the object an update or delete starts from."""

    kind: Literal["add", "update", "delete"]
    after: LiveClass | None = None  # add, update
    before: LiveClass | None = None  # update, delete


Slots = dict[str, LiveClass]
"""Extended resource name -> the class the scheduler gives a pod asking for it."""


def apply(slots: Slots, event: Event) -> Slots:
    """The scheduler's map after one event (a new dict; `slots` is left as it was)."""
    found = dict(slots)
    if event.kind == "delete":
        if event.before is not None and event.before.mapped:
            found.pop(event.before.mapped, None)
        return found
    new = event.after
    assert new is not None, "an add or update carries the object after it"
    holder = found.get(new.mapped) if new.mapped else None
    if holder is not None and (new.age < holder.age or (new.age == holder.age and new.class_name >= holder.class_name)):
        return found
    if event.kind == "update" and event.before is not None and event.before.mapped:
        found.pop(event.before.mapped, None)
    if new.mapped:
        found[new.mapped] = new
    return found


def steady(classes: Iterable[LiveClass]) -> Slots:
    """What a scheduler that has just listed these classes maps: each name's newest class, ties by the lower name."""
    slots: Slots = {}
    for found in sorted(classes, key=lambda c: c.class_name):
        slots = apply(slots, Event("add", after=found))
    return slots


def run(start: Slots, events: Iterable[Event]) -> list[Slots]:
    """The map after each event, the first being `start`."""
    states = [start]
    for event in events:
        states.append(apply(states[-1], event))
    return states


def touched(found: LiveClass) -> Event:
    """An in-place update that changes nothing the scheduler reads (an annotation): gives the class an empty slot."""
    return Event("update", after=replace(found), before=found)
