"""The DuckDB trace warehouse (schema, migrations, the one write path, reads)."""

from core.warehouse.records import Episode, Event, content_hash
from core.warehouse.store import WarehouseBusyError
from core.warehouse.writes import Writes as Warehouse

__all__ = ["Episode", "Event", "Warehouse", "WarehouseBusyError", "content_hash"]
