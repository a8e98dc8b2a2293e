"""The two figures every binding draws, with matplotlib (imported only when a plot is drawn):
a corner plot of posterior draws with the run's evaluations over them, and the trace of the
ELBO +- SD over the iterations."""
import numpy as np


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("plots need matplotlib (Debian: apt-get install python3-matplotlib; "
                          "pip: the extra vbmc[plot])") from None
    return plt


def _view(samples):
    """Axis limits of each coordinate: the central 99.8% of the draws, widened by 10%."""
    low, high = np.percentile(samples, [0.1, 99.9], axis=0)
    margin = 0.1 * np.maximum(high - low, 1e-12)
    return low - margin, high + margin


def corner(samples, evaluations=None, labels=None, title=None, bins=40, highlight=None):
    """Corner plot of draws (n, dim): each coordinate's histogram on the diagonal, each pair's
    2-D histogram below it. `evaluations` (a dict as VBMCRun.evaluations() returns) adds the
    evaluated points: hollow where the surrogate trains on them, crosses where it does not
    (failed, trimmed or penalty values), and filled for the indices in `highlight`. Returns the
    figure."""
    plt = _pyplot()
    dim = samples.shape[1]
    labels = labels or ["x%d" % (d + 1) for d in range(dim)]
    low, high = _view(samples)
    size = max(3.0, 2.2 * dim)
    figure, axes = plt.subplots(dim, dim, figsize=(size, size), squeeze=False)
    for row in range(dim):
        for column in range(dim):
            axis = axes[row, column]
            if column > row:
                axis.set_visible(False)
                continue
            if column == row:
                axis.hist(samples[:, row], bins=bins, range=(low[row], high[row]), density=True,
                          color="tab:blue", alpha=0.7)
                axis.set_yticks([])
            else:
                axis.hist2d(samples[:, column], samples[:, row], bins=bins, cmap="Blues",
                            range=[[low[column], high[column]], [low[row], high[row]]])
                if evaluations is not None:
                    _points(axis, evaluations, column, row, highlight)
                axis.set_xlim(low[column], high[column])
                axis.set_ylim(low[row], high[row])
            if row == dim - 1:
                axis.set_xlabel(labels[column])
            if column == 0 and row > 0:
                axis.set_ylabel(labels[row])
    if evaluations is not None and dim == 1:
        axes[0, 0].plot(evaluations["x"][:, 0], np.zeros(len(evaluations["x"])), "|",
                        color="tab:orange", markersize=12, label="evaluations")
        if highlight is not None and len(highlight):
            chosen = evaluations["x"][np.asarray(highlight, dtype=int), 0]
            axes[0, 0].plot(chosen, np.zeros(len(chosen)), "|", color="tab:red", markersize=16,
                            label="highlighted")
        axes[0, 0].legend(loc="upper right", fontsize="small")
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure


def _points(axis, evaluations, column, row, highlight):
    x, used = evaluations["x"], np.asarray(evaluations["in_training"], dtype=bool)
    axis.scatter(x[used, column], x[used, row], s=12, facecolors="none",
                 edgecolors="tab:orange", linewidths=0.8, label="training points")
    if (~used).any():
        axis.scatter(x[~used, column], x[~used, row], s=14, marker="x", color="tab:red",
                     linewidths=0.8, label="not trained on")
    if highlight is not None and len(highlight):
        chosen = np.asarray(highlight, dtype=int)
        axis.scatter(x[chosen, column], x[chosen, row], s=14, color="tab:orange",
                     label="highlighted")


def elbo_trace(history, final=None, title=None):
    """ELBO +- SD of each iteration against the evaluations told (warm-up iterations hollow),
    and the returned posterior's ELBO +- SD (`final`, a pair) as a line. The vertical range
    follows the later two thirds of the run: early ELBOs far below it are left out of view.
    Returns the figure."""
    plt = _pyplot()
    count, elbo, sd = history["func_count"], history["elbo"], history["elbo_sd"]
    warmup = np.asarray(history["warmup"], dtype=bool)
    figure, axis = plt.subplots(figsize=(6.5, 4))
    axis.fill_between(count, elbo - sd, elbo + sd, color="tab:blue", alpha=0.2, linewidth=0)
    axis.plot(count, elbo, "-", color="tab:blue", linewidth=1)
    axis.plot(count[~warmup], elbo[~warmup], "o", color="tab:blue", markersize=4,
              label="ELBO +- SD")
    axis.plot(count[warmup], elbo[warmup], "o", markerfacecolor="none", color="tab:blue",
              markersize=4, label="warm-up")
    late = slice(len(elbo) // 3, None)
    low, high = np.min((elbo - sd)[late]), np.max((elbo + sd)[late])
    if final is not None:
        axis.axhline(final[0], color="tab:green", linestyle="--",
                     label="returned posterior: %.4g +- %.2g" % final)
        axis.axhspan(final[0] - final[1], final[0] + final[1], color="tab:green", alpha=0.15)
        low, high = min(low, final[0] - final[1]), max(high, final[0] + final[1])
    pad = 0.1 * max(high - low, 1.0)
    axis.set_ylim(low - pad, high + pad)
    axis.set_xlabel("evaluations")
    axis.set_ylabel("ELBO")
    axis.legend(loc="lower right", fontsize="small")
    if title:
        axis.set_title(title)
    figure.tight_layout()
    return figure
