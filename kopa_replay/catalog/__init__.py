"""Tool catalogs: MCP tool definitions bound to real HTTP endpoints.

``builtin_catalog()`` is the shipped catalog of the ten platforms (``"paper"``
expands it to the paper's 2,318 tools); ``load_catalog`` reads user files.
"""

from kopa_replay.catalog.load import builtin_catalog, load_catalog, load_catalog_file, tool_to_dict, validate_file
from kopa_replay.catalog.model import (
    PAGING_PARAMS,
    Auth,
    Catalog,
    ClientFilter,
    Envelope,
    HttpBinding,
    Pagination,
    Tool,
)

__all__ = [
    "PAGING_PARAMS",
    "Auth",
    "Catalog",
    "ClientFilter",
    "Envelope",
    "HttpBinding",
    "Pagination",
    "Tool",
    "builtin_catalog",
    "load_catalog",
    "load_catalog_file",
    "tool_to_dict",
    "validate_file",
]
