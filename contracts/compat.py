"""Can the current schema of an event version still read everything its published schema allowed?

Stored events are never rewritten, so every payload that was valid against a
published schema must stay valid against the current one of the same
(type, version). A change is breaking when the current schema rejects something
the published one accepted: a property removed, a type changed or narrowed, a
property newly required, an enum value removed, a const changed, a bound or
format tightened, unknown properties newly refused. Nested models are compared
by following `$ref` into each schema's `$defs`.

Widening (a new optional property, a new enum value, a looser bound) is
compatible with the store; whether an old consumer copes with the new values
is left to review, as the subject's version is what protects it.
"""

from __future__ import annotations

from typing import Any

Schema = dict[str, Any]

LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
EXACT_RULES = ("pattern", "format")


def breaking_changes(published: Schema, current: Schema) -> list[str]:
    """Each way `current` rejects a payload `published` accepted, as `path: what changed`."""
    name = _resolve(published, published.get("$defs", {})).get("title", "payload")
    return _Comparison(published, current).changes(published, current, name)


class _Comparison:
    def __init__(self, published: Schema, current: Schema) -> None:
        self.published_defs = published.get("$defs", {})
        self.current_defs = current.get("$defs", {})
        # Pairs of $refs already compared: a shared model is reported once and a recursive one terminates.
        self.compared_refs: set[tuple[str, str]] = set()

    def changes(self, old: Schema, new: Schema, where: str) -> list[str]:
        old_ref, new_ref = old.get("$ref"), new.get("$ref")
        if old_ref is not None and new_ref is not None:
            if (old_ref, new_ref) in self.compared_refs:
                return []
            self.compared_refs.add((old_ref, new_ref))
        old, new = _resolve(old, self.published_defs), _resolve(new, self.current_defs)
        if "anyOf" in old or "anyOf" in new:
            return [change for option in _options(old) for change in self.option_changes(option, new, where)]
        if not _accepts(_kind(old), _kind(new)):
            return [f"{where}: type changed from {_kind(old)} to {_kind(new)}"]
        return [
            *_value_changes(old, new, where),
            *_rule_changes(old, new, where),
            *self.property_changes(old, new, where),
            *self.extra_property_changes(old, new, where),
            *self.item_changes(old, new, where),
        ]

    def option_changes(self, old_option: Schema, new: Schema, where: str) -> list[str]:
        """One alternative of a union (the `null` of `str | None`) must still be accepted by one of `new`."""
        kind = _kind(_resolve(old_option, self.published_defs))
        for candidate in _options(new):
            if _accepts(kind, _kind(_resolve(candidate, self.current_defs))):
                return self.changes(old_option, candidate, where)
        return [f"{where}: no longer accepts {kind}"]

    def property_changes(self, old: Schema, new: Schema, where: str) -> list[str]:
        new_properties = new.get("properties", {})
        changes = [
            f"{where}.{name}: newly required"
            for name in new.get("required", [])
            if name not in old.get("required", [])
        ]
        for name, old_property in old.get("properties", {}).items():
            if name not in new_properties:
                changes.append(f"{where}.{name}: property removed")
            else:
                changes += self.changes(old_property, new_properties[name], f"{where}.{name}")
        return changes

    def extra_property_changes(self, old: Schema, new: Schema, where: str) -> list[str]:
        old_extra, new_extra = _extra_properties(old), _extra_properties(new)
        if new_extra is False and old_extra is not False:
            return [f"{where}: additionalProperties tightened, unknown properties are now rejected"]
        if isinstance(new_extra, dict) and old_extra is True:
            return [f"{where}: additionalProperties tightened, their values are now constrained"]
        if isinstance(old_extra, dict) and isinstance(new_extra, dict):
            return self.changes(old_extra, new_extra, f"{where}.*")
        return []

    def item_changes(self, old: Schema, new: Schema, where: str) -> list[str]:
        if "items" not in old and "items" not in new:
            return []
        return self.changes(old.get("items", {}), new.get("items", {}), f"{where}[]")


def _resolve(node: Schema, defs: Schema) -> Schema:
    """A `$ref` replaced by its definition; keywords beside the `$ref` (a description) are kept."""
    if "$ref" not in node:
        return node
    name = node["$ref"].rsplit("/", 1)[-1]
    return {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}


def _options(node: Schema) -> list[Schema]:
    return node.get("anyOf", [node])


def _kind(node: Schema) -> str:
    return node.get("type", "any")


def _accepts(old_kind: str, new_kind: str) -> bool:
    return new_kind in (old_kind, "any") or (old_kind, new_kind) == ("integer", "number")


def _allowed_values(node: Schema) -> list[Any] | None:
    return [node["const"]] if "const" in node else node.get("enum")


def _value_changes(old: Schema, new: Schema, where: str) -> list[str]:
    if "const" in old and "const" in new and old["const"] != new["const"]:
        return [f"{where}: const changed from {old['const']!r} to {new['const']!r}"]
    old_values, new_values = _allowed_values(old), _allowed_values(new)
    if new_values is None:
        return []
    if old_values is None:
        return [f"{where}: now restricted to {new_values!r}"]
    removed = [value for value in old_values if value not in new_values]
    return [f"{where}: enum value {value!r} removed" for value in removed]


def _rule_changes(old: Schema, new: Schema, where: str) -> list[str]:
    return [
        f"{where}: {rule} was {old.get(rule)!r}, now {new[rule]!r}"
        for rule in (*LOWER_BOUNDS, *UPPER_BOUNDS, *EXACT_RULES)
        if rule in new and _tightened(rule, old.get(rule), new[rule])
    ]


def _tightened(rule: str, old_value: Any, new_value: Any) -> bool:
    if old_value is None:
        return True  # a rule where there was none
    if rule in LOWER_BOUNDS:
        return new_value > old_value
    if rule in UPPER_BOUNDS:
        return new_value < old_value
    return new_value != old_value  # a different pattern or format


def _extra_properties(node: Schema) -> bool | Schema:
    """`additionalProperties` as True, False or a schema; an empty schema allows anything, like True."""
    extra = node.get("additionalProperties", True)
    return True if extra == {} else extra
