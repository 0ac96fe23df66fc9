"""Shared test configuration: hypothesis profiles and a seed fixture."""

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# "dev" keeps local runs quick; "ci" (set by .ci/run) runs more examples;
settings.register_profile("dev", max_examples=25, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=60, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
# "nightly": the long fuzz runs (tests/workspace/test_import_fuzz.py scales by profile)
settings.register_profile("nightly", max_examples=1000, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


@pytest.fixture
def seed() -> int:
    """A fixed seed; tests using it must pass for any seed."""
    return 20261129


@pytest.fixture
def rng(seed) -> np.random.Generator:
    """A Generator seeded from :func:`seed`."""
    return np.random.default_rng(seed)
