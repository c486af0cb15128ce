"""Schema-Guided Dialogue (SGD) dev split as a development benchmark (issue 9, point 3).

The corpus is read from ``../shared/data/sgd`` (never copied into the project); each benchmarked service has a goal
spec written the way a company would (``benchmarks/sgd/specs``) and a slot -> objective mapping
(``benchmarks/sgd/mappings``). ``grace bench sgd`` converts, runs and scores it beside two baselines.
"""
