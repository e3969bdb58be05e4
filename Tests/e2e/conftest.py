"""Fixtures: one real Tandem server for the whole run, and extra ones on demand."""

from __future__ import annotations

import pytest

from tandem_client import Client, new_session
from tandem_server import ADMIN_KEY, ServerStartError, TandemServer

# A long typing pause on the shared server keeps "Typing" coalescing independent of how
# busy the machine is; the pause itself is tested on a server of its own.
SHARED_TYPING_PAUSE = 30


@pytest.fixture(scope="session")
def servers():
    """Starts extra servers with other settings; all are stopped when the run ends."""
    started: list[TandemServer] = []

    def start(**settings) -> TandemServer:
        server = TandemServer(**settings)
        started.append(server)
        try:
            return server.start()
        except ServerStartError as e:
            failure = str(e)
        pytest.fail(failure, pytrace=False)

    yield start
    for s in started:
        s.cleanup()


@pytest.fixture(scope="session")
def server(servers) -> TandemServer:
    return servers(typing_pause=SHARED_TYPING_PAUSE, name="shared")


@pytest.fixture(scope="session")
def access_server(servers) -> TandemServer:
    """A server with an operator key for the access tests (issue 28). `--durability off`:
    who may do what does not depend on fsync, and the matrix makes thousands of changes."""
    return servers(typing_pause=SHARED_TYPING_PAUSE, name="access",
                   extra_args=("--admin-key", ADMIN_KEY, "--durability", "off"))


@pytest.fixture(scope="session")
def base(server) -> str:
    return server.base


@pytest.fixture
def anon(base) -> Client:
    return Client(base)


@pytest.fixture
def alice(base) -> Client:
    return new_session(base, "Alice")


@pytest.fixture
def bob(base) -> Client:
    return new_session(base, "Bob")
