"""A complete lease the document tests start from and change one field of."""

from __future__ import annotations

from datetime import date

from services.document.lease.fields import LeaseFields

LEASE = LeaseFields(
    landlord_name="홍길동",
    tenant_name="김영희",
    address="서울특별시 강남구 역삼동 123-4",
    deposit_won=350_000_000,
    down_payment_won=35_000_000,
    term_start=date(2025, 3, 1),
    term_end=date(2027, 2, 28),
)
