"""Turning what the user gives into what the core reads: scenario text (from a path,
TOML text or a dict) and ``path=value`` override strings (from strings or a dict).

The Rust core owns the scenario: its schema, the override grammar and the default
seed. Nothing here interprets a scenario or applies an override; the scenario text a
run records comes from ``_core.resolve``. This module only finds the text, checks that
it is TOML at all (for a one-line message naming the file), and spells Python values
as one-line TOML for ``path=value``.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import tomli_w

from ccsim import _core
from ccsim._core import ScenarioError

Scenario = str | os.PathLike | Mapping[str, Any]
Overrides = str | Iterable[str] | Mapping[str, Any] | None


def text_of(scenario: Scenario) -> tuple[str, str]:
    """Return ``(text, source)`` where *source* names the scenario in messages."""
    if isinstance(scenario, Mapping):
        try:
            return tomli_w.dumps(dict(scenario)), "<dict>"
        except (TypeError, ValueError) as e:
            raise ScenarioError(f"scenario dict cannot be written as TOML: {e}") from None
        except RecursionError:
            raise ScenarioError(
                "scenario dict cannot be written as TOML: nested too deeply"
            ) from None
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


def base_dir_of(source: str) -> str | None:
    """The directory relative paths in a scenario (trace files) are taken from: its
    file's, when *source* (from ``text_of``) names one; else the current one (None)."""
    if source.startswith("<"):
        return None
    return str(Path(source).resolve().parent)


def scenario_base_dir(scenario: Scenario) -> str | None:
    """``base_dir_of`` for *scenario* as ``text_of`` reads it (a path, text or a dict)."""
    return base_dir_of(text_of(scenario)[1])


def check_syntax(text: str, source: str) -> dict[str, Any]:
    """Parse *text* as TOML; a syntax error becomes a one-line ScenarioError."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = " ".join(str(e).split())
        raise ScenarioError(f"{source}: invalid TOML: {msg}") from None
    except RecursionError:
        raise ScenarioError(f"{source}: invalid TOML: arrays or tables nested too deeply") from None


def normalize_overrides(overrides: Overrides) -> list[str]:
    """Accept ``["a.b=1"]``, a single ``"a.b=1"`` or ``{"a.b": 1}``; return ``["a.b=1"]``.

    Strings pass through as they are (the core reads them, and names a malformed one);
    a dict's values are spelled as one-line TOML (``toml_value``).
    """
    if overrides is None:
        return []
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        return [f"{key}={toml_value(value)}" for key, value in overrides.items()]
    out = []
    for item in overrides:
        if not isinstance(item, str):
            raise ScenarioError(f"an override must be a string path=value, got {item!r}")
        out.append(item)
    return out


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_value(value: Any) -> str:
    """The TOML spelling of one value on one line (``"5s"`` -> ``'"5s"'``, ``3`` ->
    ``'3'``, ``{"kind": "red"}`` -> ``'{ kind = "red" }'``): tables become inline
    tables, since an override is a single ``path=value``."""
    if isinstance(value, dict):
        items = ", ".join(
            f"{k if _BARE_KEY.fullmatch(k) else toml_value(k)} = {toml_value(v)}"
            for k, v in value.items()
        )
        return "{ " + items + " }" if items else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    line = tomli_w.dumps({"v": value})
    return line.split("=", 1)[1].strip()


def read_value(raw: str) -> Any:
    """The value the core reads from the ``value`` of an override ``path=value`` (TOML,
    or else the bare string), as a Python value: the core applies ``v=<raw>`` to an
    empty scenario and the text it returns is read back."""
    return tomllib.loads(_core.resolve("", [f"v={raw}"]))["v"]


def limit_text(memory_limit: str | int | None) -> str | None:
    """*memory_limit* as the core reads it (``"8GB"``, ``"off"``, bytes)."""
    if memory_limit is None or isinstance(memory_limit, str):
        return memory_limit
    if isinstance(memory_limit, bool) or not isinstance(memory_limit, int):
        raise ScenarioError(f'memory_limit: expected a size like "8GB", got {memory_limit!r}')
    return str(memory_limit)
