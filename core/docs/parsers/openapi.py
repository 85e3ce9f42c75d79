"""OpenAPI 3 specs -> one ToolDoc per operation (and ToolAlpaca entries, which wrap one).

An agent calls an operation with flat keyword arguments, so each operation
becomes a tool whose parameters are its path, query, header and cookie
parameters followed by the properties of its JSON request body (a body that
is not an object with properties is one parameter, `body`). `$ref`s into the
spec are resolved inline, because a tool's schema must stand on its own; a
reference that recurses into itself (or lies more than `MAX_REF_DEPTH`
references deep) is cut to `{"type": "object"}` with the component's name as
its title. The first 2xx (else `default`) JSON response
gives the return entries. The operation's first tag is its domain (TD); its
summary and description together are FD.
"""

from __future__ import annotations

import re
from typing import Any

from core.docs.model import Param, ToolDoc
from core.docs.parsers.errors import Where
from core.docs.parsers.schema import output_returns
from core.docs.schemas import type_part
from core.docs.types import schema_to_type
from core.safeio import InputError, loads_json

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# References inlined inside one another at most this deep (a large spec must not explode).
MAX_REF_DEPTH = 8
_UNSAFE = re.compile(r"[^A-Za-z0-9_]+")


def is_openapi(item: Any) -> bool:
    return isinstance(item, dict) and "paths" in item and ("openapi" in item or "swagger" in item)


def parse_openapi(spec: Any, where: Where, *, prefix: str = "", domain: str | None = None) -> list[ToolDoc]:
    """Every operation of an OpenAPI 3 document; `prefix` goes before each dispatch key."""
    where.check(spec, dict)
    version = spec.get("openapi")
    if not (isinstance(version, str) and version.startswith("3")):
        found = spec.get("swagger", version)
        raise where.error(f"OpenAPI {found!r} is not supported; convert the spec to OpenAPI 3 (openapi: 3.x)")
    resolver = _Resolver(spec, where)
    paths = where.require(spec, "paths", dict)
    docs: list[ToolDoc] = []
    for path, item in paths.items():
        w = where.key("paths").key(path)
        w.check(item, dict)
        shared = w.optional(item, "parameters", list) or []
        for method in METHODS:
            if method in item:
                op = w.check(item[method], dict, method)
                docs.append(_operation(path, method, op, shared, resolver, w.key(method), prefix, domain))
    if not docs:
        raise where.key("paths").error("the spec has no operations")
    return docs


def parse_toolalpaca(entry: Any, where: Where) -> list[ToolDoc]:
    """A ToolAlpaca tool entry: `Name`, `Description`, `Category` and its OpenAPI `Documentation`.

    Dispatch keys are `<Name>.<operation>` (several tools of a corpus share
    operation names); the category is the domain of operations without tags.
    """
    where.check(entry, dict)
    name = where.require(entry, "Name", str)
    raw = where.require(entry, "Documentation", (str, dict))
    spec = raw
    if isinstance(raw, str):
        try:
            spec = loads_json(raw)
        except InputError as exc:
            raise where.key("Documentation").error(f"not an OpenAPI JSON document: {exc.message}") from None
    return parse_openapi(
        spec, where.key("Documentation"), prefix=f"{name}.", domain=where.optional(entry, "Category", str)
    )


def _operation(
    path: str,
    method: str,
    op: dict[str, Any],
    shared: list[Any],
    resolver: _Resolver,
    where: Where,
    prefix: str,
    domain: str | None,
) -> ToolDoc:
    op_id = where.optional(op, "operationId", str) or f"{method}_{_UNSAFE.sub('_', path).strip('_')}"
    summary = where.optional(op, "summary", str)
    detail = where.optional(op, "description", str)
    texts = [t for t in dict.fromkeys((summary, detail)) if t and t.strip()]
    tags = where.optional(op, "tags", list) or []
    params = _parameters(shared, where.optional(op, "parameters", list) or [], resolver, where)
    body = where.optional(op, "requestBody", dict)
    if body is not None:
        taken = {p.name for p in params}
        params += _body_params(resolver.deref(body, where.key("requestBody")), resolver, where, taken)
    returns = _returns(where.optional(op, "responses", dict) or {}, resolver, where.key("responses"))
    return ToolDoc(
        tool=prefix + op_id,
        name=op_id,
        description="\n\n".join(texts) or None,
        domain=str(tags[0]) if tags else domain,
        parameters=tuple(params),
        returns=tuple(returns),
    )


def _parameters(shared: list[Any], own: list[Any], resolver: _Resolver, where: Where) -> list[Param]:
    """Path-item parameters overridden by the operation's own (same name and location)."""
    by_key: dict[tuple[str, str], Param] = {}
    for key, items in (("parameters", shared), ("parameters", own)):
        for i, raw in enumerate(items):
            w = where.key(key).index(i)
            p = resolver.deref(w.check(raw, dict), w)
            name = w.require(p, "name", str)
            location = w.require(p, "in", str)
            schema = resolver.resolve(w.optional(p, "schema", dict) or {}, w.key("schema"))
            by_key[(name, location)] = _param(
                name,
                schema,
                description=w.optional(p, "description", str),
                required=bool(p.get("required", location == "path")),
            )
    return list(by_key.values())


def _body_params(body: dict[str, Any], resolver: _Resolver, where: Where, taken: set[str]) -> list[Param]:
    schema = _json_schema(body, resolver, where.key("requestBody"))
    if schema is None:
        return []
    required_body = bool(body.get("required", False))
    props = schema.get("properties")
    if schema.get("type", "object") == "object" and isinstance(props, dict) and props:
        required = set(schema.get("required") or [])
        return [
            _param(
                name if name not in taken else f"body_{name}",
                prop,
                description=prop.get("description") if isinstance(prop, dict) else None,
                required=name in required,
            )
            for name, prop in props.items()
        ]
    return [_param("body", schema, description=body.get("description"), required=required_body)]


def _param(name: str, schema: Any, *, description: Any, required: bool) -> Param:
    schema = schema if isinstance(schema, dict) else {}
    text = description if isinstance(description, str) and description.strip() else None
    return Param(
        name=name,
        description=text
        or (schema.get("description") if isinstance(schema.get("description"), str) else None),
        type=schema_to_type(schema),
        type_schema=type_part(schema),
        has_default="default" in schema,
        default=schema.get("default"),
        required=required,
    )


def _returns(responses: dict[str, Any], resolver: _Resolver, where: Where) -> list[Any]:
    codes = sorted(k for k in responses if str(k).startswith("2")) + (
        ["default"] if "default" in responses else []
    )
    for code in codes:
        w = where.key(str(code))
        response = resolver.deref(w.check(responses[code], dict), w)
        schema = _json_schema(response, resolver, w)
        if schema is not None:
            if not schema.get("properties") and "description" not in schema and response.get("description"):
                schema = {**schema, "description": response["description"]}
            return output_returns(schema, w)
    return []


def _json_schema(holder: dict[str, Any], resolver: _Resolver, where: Where) -> dict[str, Any] | None:
    """The resolved schema of a request body or response: its JSON media type, else the first one."""
    content = where.optional(holder, "content", dict) or {}
    if not content:
        return None
    media = next((k for k in content if "json" in k), next(iter(content)))
    w = where.key("content").key(media)
    entry = w.check(content[media], dict)
    schema = w.optional(entry, "schema", dict)
    return None if schema is None else resolver.resolve(schema, w.key("schema"))


class _Resolver:
    """Inlines local `$ref`s (`#/components/...`); remote references are an error naming the key."""

    def __init__(self, spec: dict[str, Any], where: Where) -> None:
        self.spec = spec
        self.where = where

    def deref(self, obj: dict[str, Any], where: Where) -> dict[str, Any]:
        """One level: a `$ref` object replaced by its target (parameters, bodies, responses)."""
        seen: set[str] = set()
        while isinstance(obj.get("$ref"), str):
            ref = obj["$ref"]
            if ref in seen:
                raise where.error(f"$ref {ref!r} refers to itself")
            seen.add(ref)
            obj = self._target(ref, where)
        return obj

    def resolve(self, schema: Any, where: Where, stack: tuple[str, ...] = ()) -> Any:
        """A schema with every local `$ref` inlined; a recursive one is cut to an object."""
        if isinstance(schema, list):
            return [self.resolve(s, where, stack) for s in schema]
        if not isinstance(schema, dict):
            return schema
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = ref.rsplit("/", 1)[-1]
            if ref in stack or len(stack) >= MAX_REF_DEPTH:
                return {"type": "object", "title": name}
            target = self.resolve(self._target(ref, where), where, (*stack, ref))
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            return {**target, **self.resolve(rest, where, stack)} if isinstance(target, dict) else target
        return {k: self.resolve(v, where, stack) for k, v in schema.items()}

    def _target(self, ref: str, where: Where) -> dict[str, Any]:
        if not ref.startswith("#/"):
            raise where.error(f"$ref {ref!r} points outside the spec; only local references (#/...) are read")
        node: Any = self.spec
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise where.error(f"$ref {ref!r} does not resolve")
            node = node[part]
        if not isinstance(node, dict):
            raise where.error(f"$ref {ref!r} does not point at an object")
        return node
