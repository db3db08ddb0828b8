"""The study report: one call from qrels and runs to an HTML and Markdown study."""

from irstats.report.study import DEFAULT_REPORT_MEASURES, ReportResult, build_report

__all__ = ["DEFAULT_REPORT_MEASURES", "ReportResult", "build_report"]
