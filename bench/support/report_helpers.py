"""Helpers shared by the benchmark reports of bench/run (synthetic and real suites): number
formatting, medians with percentile-bootstrap intervals, and the provenance header."""
import math
import random
import statistics

BOOTSTRAP_RESAMPLES = 2000


def fmt(value, digits=3):
    if value is None:
        return "-"
    if isinstance(value, float) and math.isinf(value):
        return "inf"
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1000 or magnitude < 1e-3:
        return f"{value:.{digits - 1}e}"
    return f"{value:.{digits}g}" if magnitude < 1 else f"{value:.{max(digits, 3)}g}"


def metric(record, key):
    """A run's metric as a float; a missing (non-finite) accuracy metric counts as infinite."""
    value = record.get(key)
    if value is None:
        return math.inf if key in ("lml_err", "gskl") else None
    return float(value)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def bootstrap_ci(values, level=0.95, resamples=BOOTSTRAP_RESAMPLES, seed=0):
    """Percentile bootstrap confidence interval of the median (of the sorted values, so the same
    runs give the same interval in any order)."""
    values = sorted(v for v in values if v is not None)
    if len(values) < 2:
        return None, None
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values)))
                     for _ in range(resamples))
    low = medians[int(math.floor((1 - level) / 2 * resamples))]
    high = medians[min(resamples - 1, int(math.ceil((1 + level) / 2 * resamples)) - 1)]
    return low, high


def with_ci(value, ci):
    if value is None:
        return "-"
    if not ci or ci[0] is None:
        return fmt(value)
    return f"{fmt(value)} [{fmt(ci[0])}, {fmt(ci[1])}]"


def provenance_lines(records):
    """Markdown lines naming the engine commits, machines and commands of the records."""
    lines = []
    for key, title in (("commit", "Engine commit"), ("machine", "Machine"), ("command", "Command")):
        values = sorted({r[key] for r in records if r.get(key)})
        if values:
            lines.append(f"**{title}{'s' if len(values) > 1 else ''}:** "
                         + "; ".join(f"`{v}`" if key == "command" else v for v in values) + "  ")
    return lines
