"""The test PostgreSQL (`scripts/test-postgres.sh` exports its URL): tests that need it are
skipped locally without it, and fail in CI, where it must be there."""

from __future__ import annotations

import os

import pytest

DATABASE = os.environ.get("TANDEM_TEST_DATABASE_URL")


def needs_postgres():
    """A module's `pytestmark`: skip without the test database (an error in CI)."""
    if DATABASE:
        return []
    if os.environ.get("CI") == "true":
        raise RuntimeError("TANDEM_TEST_DATABASE_URL is unset in CI: scripts/test.sh starts a PostgreSQL for the tests")
    return pytest.mark.skip(reason="TANDEM_TEST_DATABASE_URL is unset (scripts/test-postgres.sh starts one)")
