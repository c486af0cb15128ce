"""Lead delivery: the values a company collected leave only through these authorised, audited paths — an export
by an operator (CSV/JSON by goal and date range) and a signed webhook on completion with retries and dead letters."""
