"""Errors of the directory retrieval package (TRACE).

Every error carries a stable dotted ``code`` and a one-line ``message``::

    engine.errors.InputError
    └── DirectoryError            directory.invalid
        ├── MappingError          directory.mapping_*   a field-mapping file is unreadable or inconsistent
        ├── DirectoryFileError    directory.file_*      a directory file (JSON/CSV) is unreadable or malformed
        ├── QueryFileError        directory.queries_*   a batch query file is malformed
        └── DirectoryUsageError   directory.usage_*     a bad CLI/API argument (unknown variant, bad date)
    engine.errors.RuleBundleError
    └── DirectoryRulesError       directory.rules_*     a rules/directory file failed schema or regex checks
"""

from __future__ import annotations

from engine.errors import InputError, RuleBundleError


class DirectoryError(InputError):
    default_code = "directory.invalid"


class MappingError(DirectoryError):
    default_code = "directory.mapping_invalid"


class DirectoryFileError(DirectoryError):
    default_code = "directory.file_invalid"


class QueryFileError(DirectoryError):
    default_code = "directory.queries_invalid"


class DirectoryUsageError(DirectoryError):
    default_code = "directory.usage_invalid"


class DirectoryRulesError(RuleBundleError):
    default_code = "directory.rules_invalid"
