"""Reports regenerated from the warehouse (docs/RESULTS.md): never typed by hand."""

from core.reports.results import SECTIONS, render_results, section, write_results

__all__ = ["SECTIONS", "render_results", "section", "write_results"]
