"""The DuckDB trace warehouse: schema (numbered migrations), the one write path, reads.

`Warehouse` is one file's handle: `Store` (leases, transactions, migrations,
raw queries), `Writes` (typed writes, including `record(rows)` of
`core.warehouse.rows`) and `Reads` (lookups). Query functions other layers
need live in `core.warehouse.reads`.
"""

from core.warehouse.reads import Reads
from core.warehouse.records import Episode, Event, content_hash
from core.warehouse.runs import Claimed, RunControl
from core.warehouse.store import WarehouseBusyError
from core.warehouse.writes import Writes


class Warehouse(Writes, Reads, RunControl):
    """One warehouse file with its typed writes and reads, and run control (claims, interruptions)."""


__all__ = ["Claimed", "Episode", "Event", "Warehouse", "WarehouseBusyError", "content_hash"]
