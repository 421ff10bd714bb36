"""A deal's price and what it costs on top: whether an asked price is fair against comparable complexes
(market), the acquisition tax on a purchase (acquisition_tax) and the broker's fee ceiling for a sale or a
lease (brokerage_fee)."""
