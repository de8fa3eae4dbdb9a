"""Configuration loading for shop-api.

The service reads config.toml once at start-up and merges environment overrides.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_CONFIG_PATH = Path(os.environ.get("APP_CONFIG", "/srv/app/config.toml"))
ENVIRONMENT_OVERRIDE_PREFIX = "SHOPAPI_"


class ConfigurationFileMissingError(FileNotFoundError):
    """Raised when config.toml cannot be found at the expected location."""


@dataclass(frozen=True)
class DatabaseSettings:
    url: str
    pool_size: int = 20
    statement_timeout_ms: int = 15_000


@dataclass(frozen=True)
class WarehouseSyncSettings:
    batch_size: int = 250
    retry_on_bad_gateway: bool = True
    reconcile_ledger_entries_nightly: bool = True


@dataclass(frozen=True)
class ApplicationConfig:
    database: DatabaseSettings
    warehouse_sync: WarehouseSyncSettings = field(default_factory=WarehouseSyncSettings)
    invoice_export_v2_enabled: bool = False
    max_concurrent_invoice_exports: int = 4


def apply_environment_overrides(raw: dict, environ: dict[str, str] | None = None) -> dict:
    environ = os.environ if environ is None else environ
    for key, value in environ.items():
        if not key.startswith(ENVIRONMENT_OVERRIDE_PREFIX):
            continue
        section, _, option = key[len(ENVIRONMENT_OVERRIDE_PREFIX):].lower().partition("__")
        raw.setdefault(section, {})[option] = value
    return raw


def load_config(path: Path = DEFAULT_CONFIG_PATH) -> ApplicationConfig:
    if not path.exists():
        raise ConfigurationFileMissingError(f"cannot find {path}; set APP_CONFIG or pass --config")
    with path.open("rb") as handle:
        raw = apply_environment_overrides(tomllib.load(handle))
    database = DatabaseSettings(**raw.get("database", {}))
    warehouse_sync = WarehouseSyncSettings(**raw.get("warehouse_sync", {}))
    features = raw.get("features", {})
    return ApplicationConfig(
        database=database,
        warehouse_sync=warehouse_sync,
        invoice_export_v2_enabled=bool(features.get("invoice_export_v2", False)),
        max_concurrent_invoice_exports=int(features.get("max_concurrent_invoice_exports", 4)),
    )
