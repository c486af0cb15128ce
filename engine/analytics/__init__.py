"""Conversation analytics for the company: per goal and period, how conversations go (started, completed, stopped,
abandoned), where visitors drop off, what they refuse, what the documents could not answer and how often they
correct a value, computed from the stored summaries and the sealed audit records only: no personal value is opened
(the records' sealed fields are never decrypted; only counts, codes and objective ids are read)."""
