"""Replace contact data (e-mail addresses, phone-number-like strings) by keyed digest tokens.

A token looks like ``email:hmac8:kdmbfaop`` / ``phone:hmac8:pbagcoen``: the kind, the digest length, and the
first characters of HMAC-SHA256(key, tag | kind | canonical value). The digest's hex digits 0-9a-f are
written as the letters a-p, so a token never contains a run of digits or an ``@`` and redaction is
idempotent. Equal values give equal tokens under one key (e-mails compare case-insensitively, phones by
their digits and a leading '+'), so an auditor can check "the same address as turn 2" without seeing it.

What stays readable: offsets, validator names, result codes, numbers that are not phone-like, dates,
single-dot decimals, money amounts next to a currency marker, hex digests. What the detector cannot see:
contact data spelled out in words ("six zero zero ..."), phone numbers stored as JSON floats, or digits glued
to a word that could be hex or holds digits ("abc600000005").

Detection works on the text as given and, if that differs, on its Unicode-normalised form too (fullwidth
'@', zero-width characters), so a disguised address is still replaced. The rules (digit counts, money
markers, exempt keys) are data: ``audit/policy/redaction.json``.

One module an idea: ``policy`` (the rule file's model and reader), ``detection`` (where contact data stands in
a string), ``tokens`` (keyed digest tokens and value digests), ``walker`` (the redactor that walks a record).
"""

from audit.redaction.detection import Detector, Finding, Kind
from audit.redaction.policy import DEFAULT_POLICY_PATH, PhonePolicy, RedactionPolicy, load_policy
from audit.redaction.tokens import TokenKey
from audit.redaction.walker import Redactor, default_redactor, redact_record

__all__ = [
    "DEFAULT_POLICY_PATH",
    "Detector",
    "Finding",
    "Kind",
    "PhonePolicy",
    "RedactionPolicy",
    "Redactor",
    "TokenKey",
    "default_redactor",
    "load_policy",
    "redact_record",
]
