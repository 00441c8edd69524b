"""Settings: the editor's (one fully defaulted model, forgiving) over the project's ``[tool.errknow]``.

Editor settings come from ``initializationOptions`` and ``workspace/configuration`` (or the
``settings`` of ``workspace/didChangeConfiguration``); a bad value falls back to its default with
one message. A key the editor sets wins over ``pyproject.toml``; a key it leaves unset does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from errknow_ls.lsp.output.watched import DEFAULT_LOG_GLOBS
from errknow_ls.project import Selectors, SeverityName, select_rules

SECTION = "errknow"


class Settings(BaseModel):
    """``initializationOptions`` and the ``errknow`` section of ``workspace/configuration``."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    select: list[str] | None = None
    """Rule codes, prefixes or names to run (default: the project's, else all)."""
    ignore: list[str] | None = None
    severity: dict[str, SeverityName] = Field(default_factory=dict)
    """Per rule code or name: error, warning, information, hint, or off."""
    records: list[str] = Field(default_factory=list)
    """Extra record directories: after the built-in ones and ``--records``, before the project's
    (``[tool.errknow]`` ``records``, then ``.errknow/records``)."""
    locale: str | None = None
    """``en`` or ``zh``; by default (``auto``, or none) the client's ``initialize.locale``."""
    exclude: list[str] = Field(default_factory=list)
    """Gitignore-style patterns the workspace scan skips, besides ``.gitignore`` and the project's."""
    log_level: Literal["error", "warning", "info", "debug"] = Field(default="warning", alias="logLevel")
    interpreter: str | None = None
    """The project's Python, to read its torch version from (never run)."""
    scan_workspace: bool = Field(default=True, alias="scanWorkspace")
    log_globs: list[str] = Field(default_factory=lambda: list(DEFAULT_LOG_GLOBS), alias="logGlobs")
    """Workspace log files watched for tracebacks, read as they grow."""

    @field_validator("locale", mode="before")
    @classmethod
    def _auto_locale(cls, value: Any) -> Any:
        return None if isinstance(value, str) and value.strip().lower() in {"", "auto"} else value

    @field_validator("select", "ignore", "records", "exclude", "log_globs", mode="before")
    @classmethod
    def _split_strings(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value


def parse_settings(raw: Any) -> tuple[Settings, str | None]:
    """Settings from whatever the client sent, and a message when something was ignored."""
    if raw is None:
        return Settings(), None
    if isinstance(raw, Mapping) and isinstance(raw.get(SECTION), Mapping):
        raw = raw[SECTION]
    if not isinstance(raw, Mapping):
        return Settings(), f"errknow settings must be an object, got {type(raw).__name__}; using defaults"
    try:
        return Settings.model_validate(dict(raw)), None
    except ValidationError as exc:
        good = dict(raw)
        bad = []
        for error in exc.errors(include_url=False):
            key = str(error["loc"][0]) if error["loc"] else ""
            good.pop(key, None)
            bad.append(f"{key}: {error['msg']}")
        message = "invalid errknow settings ignored (" + "; ".join(bad) + "); using defaults for them"
        try:
            return Settings.model_validate(good), message
        except ValidationError:
            return Settings(), message


def merge(*layers: Any) -> Any:
    """Later layers of raw settings over earlier ones (``initializationOptions``, then configuration)."""
    merged: dict[str, Any] = {}
    for layer in layers:
        section = (
            layer[SECTION]
            if isinstance(layer, Mapping) and isinstance(layer.get(SECTION), Mapping)
            else layer
        )
        if isinstance(section, Mapping):
            merged.update(section)
        elif section is not None:
            return section  # not an object: parse_settings says so
    return merged


def editor_selectors(settings: Settings) -> Selectors:
    return Selectors(settings.select, settings.ignore)


def unknown_rules(settings: Settings) -> list[str]:
    """Selectors and severity keys in the editor's settings that name no rule."""
    _, unknown = select_rules(editor_selectors(settings), Selectors(), settings.severity)
    return [name for problem in unknown for name in problem.names]
