"""Figures of the standardization experiments (METHODS.md §6: F7, F8, F9).

Each figure is drawn from stored experiment output (a result object of
:mod:`irstats.meta.robustness` / :mod:`irstats.meta.comparability`, or the frame its
``*_data`` function returns), accepts ``ax=`` and returns the Axes. The ``*_data``
functions give the plotted numbers as a polars frame, for :func:`irstats.plots.save`::

    ax = plot_tau_quantiles(result, reference_lines={"raw vs std": result.raw_tau})
    save(ax, "f7.png", tau_quantile_data(result, {"raw vs std": result.raw_tau}))

- **F7** :func:`plot_tau_quantiles`: τ_b quantiles (50%, 5%, 1%) against the number of
  standardizing systems, with optional horizontal reference lines (*Score Standardization* Fig. 4).
- **F8** :func:`plot_drmse`: mean dRMSE per metric group, one bar per form (raw,
  R-normalised, standardized), optional 95% whiskers (Figs. 5 and 7).
- **F9** :func:`plot_false_positives`: the 97.5% quantile of the false-positive rate,
  same bars, dashed line at α (Fig. 6).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import polars as pl

from irstats.plots.common import PALETTE, figure_function, legend_outside, line_width, marker_size, new_axes

#: Bar order within a metric group; other forms follow in order of appearance.
FORM_ORDER = ("raw", "R-normalised", "standardized")

_LINE_STYLES = {"50%": "-", "5%": "--", "1%": ":"}


# --------------------------------------------------------------------------- F7


def tau_quantile_data(result, reference_lines: Mapping[str, float] | None = None) -> pl.DataFrame:
    """The data of F7 in long form: ``series, n, tau``.

    ``result`` is a :class:`~irstats.meta.robustness.RobustnessResult`, its ``frame()``
    (columns ``n`` and ``tau_q…``) or a frame of this function's own shape. One series per
    quantile (``50%``, ``5%``, ``1%``) with a row per size; each reference line is a series
    ``reference: <label>`` of one row with ``n`` null.
    """
    frame = result.to_frame() if hasattr(result, "to_frame") else result
    if set(frame.columns) >= {"series", "n", "tau"}:
        base = frame.filter(~pl.col("series").str.starts_with("reference: "))
        extra = {**{s[len("reference: "):]: v for s, v in frame.filter(pl.col("series").str.starts_with(
            "reference: ")).select("series", "tau").iter_rows()}, **(reference_lines or {})}
        series, ns, taus = base["series"].to_list(), base["n"].to_list(), base["tau"].to_list()
        reference_lines = extra
    else:
        series, ns, taus = [], [], []
        for col in frame.columns:
            if not col.startswith("tau_q"):
                continue
            label = f"{float(col[len('tau_q'):]):g}%"
            series += [label] * frame.height
            ns += frame.get_column("n").to_list()
            taus += frame.get_column(col).to_list()
    for label, value in (reference_lines or {}).items():
        series.append(f"reference: {label}")
        ns.append(None)
        taus.append(float(value))
    return pl.DataFrame({"series": series, "n": ns, "tau": taus},
                        schema={"series": pl.String, "n": pl.Int64, "tau": pl.Float64})


@figure_function
def plot_tau_quantiles(result, ax=None, reference_lines: Mapping[str, float] | None = None, title: str | None = None):
    """F7: quantiles of τ_b (sampled vs full factors) against the number of standardizing systems.

    ``reference_lines`` maps labels to τ values drawn as horizontal grey lines (the paper's
    0.742 between topic sets and 0.919 between raw and standardized AP, or recomputed ones).
    """
    ax = new_axes(ax)
    data = tau_quantile_data(result, reference_lines)
    curves = data.filter(pl.col("n").is_not_null())
    for k, name in enumerate(curves.get_column("series").unique(maintain_order=True).to_list()):
        part = curves.filter(pl.col("series") == name).sort("n")
        ax.plot(part["n"].to_numpy(), part["tau"].to_numpy(), _LINE_STYLES.get(name, "-"), color=PALETTE[k % 10],
                marker="o" if part.height <= 20 else None, markersize=marker_size(0.6), label=f"{name} quantile")
    refs = data.filter(pl.col("n").is_null())
    for k, (name, value) in enumerate(refs.select("series", "tau").iter_rows()):
        ax.axhline(value, color="0.45", linestyle=("-.", (0, (5, 2, 1, 2)), (0, (1, 3)))[k % 3],
                   linewidth=line_width(0.7),
                   label=f"{name[len('reference: '):]} ({value:.3f})")
    ax.set_xlabel("number of standardizing systems n")
    ax.set_ylabel("Kendall's τ_b vs full factor set")
    if title:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    legend_outside(ax)
    return ax


# --------------------------------------------------------------------------- F8, F9


def _summary_frame(result) -> pl.DataFrame:
    return result.to_frame() if hasattr(result, "to_frame") else result


def drmse_data(result, whiskers: bool = True) -> pl.DataFrame:
    """The data of F8: ``group, form, drmse, low, high``.

    ``result`` is a :class:`~irstats.meta.comparability.BaselineResult` or its ``frame()``
    (``drmse_mean`` and, for whiskers, ``drmse_q2.5``/``drmse_q97.5``), or any frame with
    ``group, form, drmse`` [``low, high``] (e.g. mean observed dRMSE over collection pairs).
    """
    frame = _summary_frame(result)
    if "drmse_mean" in frame.columns:
        out = frame.select("group", "form", pl.col("drmse_mean").alias("drmse"),
                           (pl.col("drmse_q2.5") if whiskers and "drmse_q2.5" in frame.columns
                            else pl.lit(None, pl.Float64)).alias("low"),
                           (pl.col("drmse_q97.5") if whiskers and "drmse_q97.5" in frame.columns
                            else pl.lit(None, pl.Float64)).alias("high"))
    else:
        cols = [pl.col("group"), pl.col("form"), pl.col("drmse")]
        for c in ("low", "high"):
            cols.append(pl.col(c) if whiskers and c in frame.columns else pl.lit(None, pl.Float64).alias(c))
        out = frame.select(cols)
    return out.with_columns(pl.col("drmse", "low", "high").cast(pl.Float64))


def false_positive_data(result, alpha: float | None = None) -> pl.DataFrame:
    """The data of F9: ``group, form, fp_q97.5, fp_mean, alpha``."""
    frame = _summary_frame(result)
    alpha = alpha if alpha is not None else getattr(result, "alpha", 0.05)
    mean = pl.col("fp_mean") if "fp_mean" in frame.columns else pl.lit(None, pl.Float64).alias("fp_mean")
    return frame.select("group", "form", pl.col("fp_q97.5").cast(pl.Float64), mean).with_columns(
        pl.lit(float(alpha)).alias("alpha"))


def _bars(ax, frame: pl.DataFrame, value: str, low: str | None = None, high: str | None = None):
    groups = frame.get_column("group").unique(maintain_order=True).to_list()
    present = frame.get_column("form").unique(maintain_order=True).to_list()
    forms = [f for f in FORM_ORDER if f in present] + [f for f in present if f not in FORM_ORDER]
    width = 0.8 / max(len(forms), 1)
    x = np.arange(len(groups), dtype=float)
    for k, form in enumerate(forms):
        part = frame.filter(pl.col("form") == form)
        where = {g: i for i, g in enumerate(groups)}
        pos = np.array([where[g] for g in part["group"].to_list()], dtype=float)
        heights = part[value].to_numpy().astype(float)
        offset = (k - (len(forms) - 1) / 2) * width
        yerr = None
        if low and high and part[low].null_count() < part.height:
            lo = part[low].fill_null(np.nan).to_numpy().astype(float)
            hi = part[high].fill_null(np.nan).to_numpy().astype(float)
            yerr = np.vstack([np.clip(heights - lo, 0, None), np.clip(hi - heights, 0, None)])
            yerr = np.nan_to_num(yerr)
        ax.bar(x[pos.astype(int)] + offset, heights, width * 0.95, color=PALETTE[k % 10], label=form,
               yerr=yerr, capsize=None if yerr is not None else 0, ecolor="0.2",
               error_kw={"elinewidth": line_width(0.7)})
    ax.set_xticks(x, groups)
    ax.set_xlabel("metric")
    top = frame.select(pl.max_horizontal([pl.col(c) for c in (value, low, high) if c]).max()).item()
    if top is not None and np.isfinite(top) and top > 0:
        ax.set_ylim(0, top * 1.08)
    ax.grid(True, axis="y", alpha=0.3)
    return ax


@figure_function
def plot_drmse(result, ax=None, whiskers: bool = True, title: str | None = None):
    """F8: mean dRMSE per metric group, a bar per form; whiskers at the 2.5% and 97.5%
    quantiles when the result has them and ``whiskers`` is set."""
    ax = new_axes(ax)
    data = drmse_data(result, whiskers)
    _bars(ax, data, "drmse", "low" if whiskers else None, "high" if whiskers else None)
    ax.set_ylabel("dRMSE")
    if title:
        ax.set_title(title)
    legend_outside(ax)
    return ax


@figure_function
def plot_false_positives(result, ax=None, alpha: float | None = None, title: str | None = None):
    """F9: the 97.5% quantile of the false-positive rate per metric group and form, with a
    dashed line at α."""
    ax = new_axes(ax)
    data = false_positive_data(result, alpha)
    _bars(ax, data, "fp_q97.5")
    level = float(data["alpha"][0]) if data.height else (alpha or 0.05)
    ax.axhline(level, color="0.2", linestyle="--", linewidth=line_width(0.8), label=f"α = {level:g}")
    ax.set_ylabel("false-positive rate, 97.5% quantile")
    if title:
        ax.set_title(title)
    legend_outside(ax)
    return ax


__all__ = ["FORM_ORDER", "drmse_data", "false_positive_data", "plot_drmse", "plot_false_positives",
           "plot_tau_quantiles", "tau_quantile_data"]
