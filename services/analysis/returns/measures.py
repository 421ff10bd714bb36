"""Return measures over yearly cash flows (현금흐름), year 0 first: IRR by bisection (no numpy needed and no
guess to diverge from) and the equity multiple."""

from __future__ import annotations

from collections.abc import Sequence

IRR_LOW, IRR_HIGH = -0.9999, 10.0  # −99.99% to +1,000% a year covers every plausible home


def npv(rate: float, flows: Sequence[float]) -> float:
    return sum(f / (1 + rate) ** t for t, f in enumerate(flows))


def irr(flows: Sequence[float], tolerance: float = 1e-9) -> float | None:
    """The rate at which the flows' NPV is zero; None when the NPV keeps one sign over the whole range
    (nothing invested, or nothing ever comes back)."""
    low, high = IRR_LOW, IRR_HIGH
    f_low, f_high = npv(low, flows), npv(high, flows)
    if f_low == 0:
        return low
    if f_low * f_high > 0:
        return None
    for _ in range(200):
        mid = (low + high) / 2
        f_mid = npv(mid, flows)
        if abs(high - low) < tolerance or f_mid == 0:
            return mid
        if f_low * f_mid < 0:
            high = mid
        else:
            low, f_low = mid, f_mid
    return (low + high) / 2


def equity_multiple(flows: Sequence[float]) -> float | None:
    """Everything received ÷ everything put in; None when nothing was put in."""
    put_in = -sum(f for f in flows if f < 0)
    return sum(f for f in flows if f > 0) / put_in if put_in > 0 else None
