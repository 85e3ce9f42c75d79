"""Smart-home APIs (SPEC.md 3.5): scenes and timed switches.

AddScene and ModifyScene normalise the device list *in place* (names
lower-cased and trimmed, descriptions trimmed, sorted by name), so the echoed
`input` shows the normalised list, as upstream does.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from core.benchmarks.apibank.common import (
    DATETIME,
    ApiDef,
    ApiError,
    ParamSpec,
    arg,
    as_datetime,
    check_inputs,
    identity,
    lower_trim,
    norm_time,
    same,
)


def _scene_name(name: Any) -> str:
    key = name.strip().lower()
    if not key:
        raise ApiError("Scene name cannot be empty.")
    return key


def _normalise_devices(devices: Any) -> Any:
    # A list passed as text is iterated character by character and fails here (B1).
    for d in devices:
        if "name" not in d or "description" not in d:
            raise ApiError("Invalid device format.")
    for d in devices:
        d["name"] = d["name"].strip().lower()
        d["description"] = d["description"].strip()
    names = [d["name"] for d in devices]
    if len(set(names)) != len(names):
        raise ApiError("Device name cannot be duplicated.")
    devices.sort(key=lambda d: d["name"])
    return devices


def add_scene(session: Any, name: Any, devices: Any) -> str:
    key = _scene_name(name)
    devices = _normalise_devices(devices)
    scenes = session.db("Scenes")
    if key in scenes:
        raise ApiError("Scene name already exists.")
    scenes[key] = copy.deepcopy(devices)
    return "success"


def modify_scene(session: Any, name: Any, devices: Any) -> str:
    key = _scene_name(name)
    devices = _normalise_devices(devices)
    scenes = session.db("Scenes")
    if key not in scenes:
        raise ApiError("The scene does not exist.")
    scenes[key] = copy.deepcopy(devices)
    return "success"


def _devices_norm(devices: Any) -> Any:
    try:
        return _normalise_devices(copy.deepcopy(devices))
    except ApiError:
        return object()


def _scene_check(outputs_equal: bool) -> Any:
    def _check(pred: Mapping[str, Any], gold: Mapping[str, Any]) -> bool:
        if lower_trim(arg(pred, "name")) != lower_trim(arg(gold, "name")):
            return False
        if _devices_norm(arg(pred, "devices")) != _devices_norm(arg(gold, "devices")):
            return False
        if outputs_equal:
            if not same(pred, gold, "output"):
                return False
        elif gold.get("output") is None and pred.get("output") is not None:
            return False
        return same(pred, gold, "exception")

    return _check


def delete_scene(session: Any, name: Any) -> str:
    key = _scene_name(name)
    scenes = session.db("Scenes")
    if key not in scenes:
        raise ApiError("The scene does not exist.")
    del scenes[key]
    return "success"


def query_scene(session: Any, name: Any) -> list[dict]:
    key = _scene_name(name)
    scenes = session.db("Scenes")
    if key not in scenes:
        raise ApiError("Scene not found.")
    return copy.deepcopy(scenes[key])


def timed_switch(session: Any, name: Any, time: Any, on: Any) -> str:
    key = name.strip().lower()
    if not key:
        raise ApiError("Name cannot be empty.")
    when = norm_time(time, DATETIME)
    switches = session.db("TimeSwitch")
    if key not in switches:
        switches[key] = [{"time": when, "on": on}]
        return "success"
    for entry in switches[key]:
        if entry["time"] == when:
            entry["on"] = on
            return "success"
    switches[key].append({"time": when, "on": on})
    return "success"


def cancel_timed_switch(session: Any, name: Any, time: Any) -> str:
    key = name.strip().lower()
    if not key:
        raise ApiError("name cannot be empty.")
    when = norm_time(time, DATETIME)
    switches = session.db("TimeSwitch")
    if key not in switches:
        raise ApiError("device name does not exist.")
    for i, entry in enumerate(switches[key]):
        if entry["time"] == when:
            del switches[key][i]
            return "success"
    raise ApiError("time does not exist.")


S = ParamSpec
APIS: tuple[ApiDef, ...] = (
    ApiDef("AddScene", "smart_home", (S("name"), S("devices", "list")), add_scene, _scene_check(False)),
    ApiDef("DeleteScene", "smart_home", (S("name"),), delete_scene, check_inputs(("name", lower_trim))),
    ApiDef("ModifyScene", "smart_home", (S("name"), S("devices", "list")), modify_scene, _scene_check(True)),
    ApiDef("QueryScene", "smart_home", (S("name"),), query_scene, check_inputs(("name", lower_trim))),
    ApiDef(
        "TimedSwitch",
        "smart_home",
        (S("name"), S("time"), S("on", "bool")),
        timed_switch,
        check_inputs(("name", lower_trim), ("time", as_datetime), ("on", identity)),
    ),
    ApiDef(
        "CancelTimedSwitch",
        "smart_home",
        (S("name"), S("time")),
        cancel_timed_switch,
        check_inputs(("name", lower_trim), ("time", as_datetime)),
    ),
)
