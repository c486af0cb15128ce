"""Onboarding benchmark (issue 27): a company onboards itself from plain words, measured on SGD services.

For each SGD service the manager's intent is written from the schema's own slot descriptions with one fixed
template (``template``), the slots it asks for are chosen once from the schema (``slots``), the intent is compiled
through the ``grace compile`` path with no hand edits (``compile_step``), compiled objectives are mapped back to
SGD slots through the phrases the compiler claims (``mapping``), and the service's single-service dialogues run
through the full turn runtime and are scored per slot (``bench``). ``grace bench onboarding`` prints it (``cli``).
"""
