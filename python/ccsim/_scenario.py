"""Turning what the user gives (a path, TOML text or a dict) into scenario text.

The Rust core owns the scenario schema; this module only finds the text, checks that
it is TOML at all (for a one-line message naming the file), and can replay ``--set``
overrides onto a copy so that a written run records the scenario that actually ran.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import tomli_w

from ccsim._core import ScenarioError

Scenario = str | os.PathLike | Mapping[str, Any]


def resolve(scenario: Scenario) -> tuple[str, str]:
    """Return ``(text, source)`` where *source* names the scenario in messages."""
    if isinstance(scenario, Mapping):
        try:
            return tomli_w.dumps(dict(scenario)), "<dict>"
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"scenario dict cannot be written as TOML: {e}") from None
    if isinstance(scenario, os.PathLike) or (
        isinstance(scenario, str) and "\n" not in scenario and "=" not in scenario
    ):
        path = Path(scenario)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ScenarioError(f"scenario file not found: {path}") from None
        except IsADirectoryError:
            raise ScenarioError(f"scenario is a directory, not a file: {path}") from None
        except UnicodeDecodeError:
            raise ScenarioError(f"{path}: not a UTF-8 text file") from None
        except OSError as e:
            raise ScenarioError(f"cannot read scenario {path}: {e.strerror or e}") from None
        return text, str(path)
    if isinstance(scenario, str):
        return scenario, "<text>"
    raise TypeError(f"scenario must be a path, TOML text or a dict, not {type(scenario).__name__}")


def check_syntax(text: str, source: str) -> dict[str, Any]:
    """Parse *text* as TOML; a syntax error becomes a one-line ScenarioError."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = " ".join(str(e).split())
        raise ScenarioError(f"{source}: invalid TOML: {msg}") from None


def normalize_overrides(overrides: str | Iterable[str] | Mapping[str, Any] | None) -> list[str]:
    """Accept ``["a.b=1"]``, a single ``"a.b=1"`` or ``{"a.b": 1}``; return ``["a.b=1"]``."""
    if overrides is None:
        return []
    if isinstance(overrides, str):
        overrides = [overrides]
    if isinstance(overrides, Mapping):
        return [f"{key}={_toml_value(value)}" for key, value in overrides.items()]
    out = []
    for item in overrides:
        if not isinstance(item, str) or "=" not in item:
            raise ScenarioError(f"an override must look like path=value, got {item!r}")
        key = item.split("=", 1)[0].strip()
        if not key:
            raise ScenarioError(f"an override must look like path=value, got {item!r}")
        out.append(item)
    return out


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_value(value: Any) -> str:
    """The TOML spelling of one value on one line (``"5s"`` -> ``'"5s"'``, ``3`` ->
    ``'3'``, ``{"kind": "red"}`` -> ``'{ kind = "red" }'``): tables become inline
    tables, since an override is a single ``path=value``."""
    if isinstance(value, dict):
        items = ", ".join(
            f"{k if _BARE_KEY.fullmatch(k) else _toml_value(k)} = {_toml_value(v)}"
            for k, v in value.items()
        )
        return "{ " + items + " }" if items else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    line = tomli_w.dumps({"v": value})
    return line.split("=", 1)[1].strip()


def parse_value(raw: str) -> Any:
    """An override value: TOML if it parses, else the bare string (as the core does)."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw.strip()


_SEGMENT = re.compile(r"([^.\[\]]+)((?:\[\d+\])*)")


def _split_path(path: str) -> list[str | int]:
    parts: list[str | int] = []
    for piece in path.strip().split("."):
        m = _SEGMENT.fullmatch(piece.strip())
        if not m:
            raise ValueError(path)
        parts.append(m.group(1).strip().strip('"'))
        parts.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
    return parts


def apply_overrides(text: str, overrides: list[str]) -> str:
    """The scenario text with *overrides* applied, for the record written with a run.

    Without overrides the text is returned verbatim (comments kept). With overrides the
    scenario is re-serialized. If an override cannot be replayed here (the core accepted
    it, so this is only about the record), the original text is returned with the
    overrides listed in a header comment.
    """
    if not overrides:
        return text
    header = "".join(f"# --set {o}\n" for o in overrides)
    try:
        doc = tomllib.loads(text)
        for item in overrides:
            key, raw = item.split("=", 1)
            parts = _split_path(key)
            node: Any = doc
            for part, nxt in zip(parts, parts[1:], strict=False):
                if isinstance(part, int):
                    node = node[part]
                else:
                    if part not in node:
                        node[part] = [] if isinstance(nxt, int) else {}
                    node = node[part]
            last = parts[-1]
            node[last] = parse_value(raw)
        return "# scenario with overrides applied:\n" + header + "\n" + tomli_w.dumps(doc)
    except (ValueError, KeyError, IndexError, TypeError, tomllib.TOMLDecodeError):
        return "# overrides given on top of this scenario:\n" + header + "\n" + text
