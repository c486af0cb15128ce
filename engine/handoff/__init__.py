"""Human handoff: a visitor may ask for a person at any time. Detecting the request is a proposer-side intent kept
apart from the offline proposer (``detect``: phrases are language data in rules/handoff.json); how the company's
people take over (e-mail, phone, a webhook to its inbox, opening hours) is company data (``config``); the request
is noted in the turn's audit record and delivered with the recorded values and a transcript link."""
