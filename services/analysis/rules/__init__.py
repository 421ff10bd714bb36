"""The analysis's rule data: the pydantic models of the dated rule files (infra/seed/rules/), one module per
file, the statute text the tools cite, and the library that holds them all. Data and the lookups that read
it only: no module here imports a tool (checked by the `analysis-layers` contract in .importlinter)."""
