"""Follow-up turns: the constraints of earlier turns carry over until the visitor changes them.

'Food pantry in Wichita' then 'any of them open Saturday?' searches Wichita on Saturdays; 'what about Topeka?'
replaces the place and keeps the rest; 'and without ID?' adds a requirement. A turn that names no constraint at all
('thanks') carries nothing, a complete new request ('food pantry in Topeka') or a reset cue ('new search') starts
over. Which kinds may carry is rule data.
"""

from __future__ import annotations

from dataclasses import replace

from engine.directory.constraints import Constraints
from engine.directory.directory_rules import NaturalVocabulary
from engine.directory.query import ParsedQuery
from engine.kernel.ports import CarriedKind


def _has_any(c: Constraints) -> bool:
    return bool(c.places or c.unknown_places or c.proximity or c.ambiguous or c.names or c.hours is not None
                or c.served_zip
                or c.concepts or c.service or c.excluded or c.excluded_names)


def merge_followup(parsed: ParsedQuery, previous: ParsedQuery, natural: NaturalVocabulary) -> ParsedQuery:
    new, old = parsed.constraints, previous.constraints
    if parsed.reset or parsed.standalone or not _has_any(new):
        return parsed
    carry = natural.carry
    carried: list[CarriedKind] = []
    located = bool(new.places or new.unknown_places or new.proximity or new.ambiguous or new.served_zip)
    places, proximity, served_zip = new.places, new.proximity, new.served_zip
    if not located and not new.names:
        if "places" in carry and (old.places or old.served_zip):
            places, served_zip = old.places, old.served_zip
            carried.append("places")
        if "proximity" in carry and old.proximity is not None:
            proximity = old.proximity
            carried.append("proximity")
    hours = new.hours
    if hours is None and "hours" in carry and old.hours is not None:
        hours = old.hours
        carried.append("hours")
    concepts = new.concepts
    if "concepts" in carry and old.concepts:
        concepts = tuple(dict.fromkeys(old.concepts + new.concepts))
        if concepts != new.concepts:
            carried.append("concepts")
    service = new.service
    if service is None and "service" in carry and old.service is not None:
        service = old.service
        carried.append("service")
    names = new.names
    if not names and not located and "names" in carry and old.names:
        names = old.names
        carried.append("names")
    excluded, preferred = new.excluded, new.preferred
    if "concepts" in carry and (old.excluded or old.preferred):
        excluded = tuple(dict.fromkeys(old.excluded + new.excluded))
        preferred = tuple(dict.fromkeys(old.preferred + new.preferred))
    excluded_names = new.excluded_names
    if "names" in carry and old.excluded_names:
        excluded_names = tuple(dict.fromkeys(old.excluded_names + new.excluded_names))
    merged = replace(new, places=places, proximity=proximity, hours=hours, concepts=concepts, service=service,
                     names=names, excluded=excluded, preferred=preferred, excluded_names=excluded_names,
                     served_zip=served_zip)
    return replace(parsed, constraints=merged, intent=True, carried=tuple(carried))
