"""Cost-sensitive instance hardness (placeholder until the core-measures work lands)."""


def instance_hardness(*args, **kwargs):  # pragma: no cover - replaced by issue 2
    raise NotImplementedError
