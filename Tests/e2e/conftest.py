"""Fixtures: one real Tandem server for the whole run, and extra ones on demand."""

from __future__ import annotations

import os

import pytest

from tandem_client import Client, new_session
import tandem_server
from tandem_server import ADMIN_KEY, NODES, ON_POSTGRES, ServerStartError, TandemServer

# A long typing pause on the shared server keeps "Typing" coalescing independent of how
# busy the machine is; the pause itself is tested on a server of its own.
SHARED_TYPING_PAUSE = 30

# TANDEM_E2E_BASE_URL: the tests of the shared server run against a Tandem that is already
# up (scripts/test-compose.sh points it at compose.yaml's balancer, its nodes started with
# TANDEM_TYPING_PAUSE=30 like the shared server); tests that start servers of their own, or
# need one process (`one_node`), are skipped.
EXTERNAL = os.environ.get("TANDEM_E2E_BASE_URL", "").rstrip("/")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "one_node(reason): under TANDEM_E2E_NODES=2 the test's servers (the shared one and "
        "those it starts through `servers`) run as one node on PostgreSQL, without nginx; the "
        "reason says why the test needs one process (e.g. it tests Tandem's own HTTP parsing)")
    config.addinivalue_line(
        "markers", "sqlite_only(reason): the test runs only its servers on SQLite (on_postgres=False) and "
        "so runs in the SQLite pass only; under TANDEM_E2E_DATABASE=postgres it would repeat it as is")


def one_node_reason(item) -> str | None:
    """The reason of the test's `one_node` marker (its own, its class's or its module's)."""
    marker = item.get_closest_marker("one_node")
    if marker is None:
        return None
    reason = marker.args[0] if marker.args else marker.kwargs.get("reason")
    if not isinstance(reason, str) or not reason.strip():
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.one_node needs a reason, e.g. one_node(\"tests Tandem's own HTTP parser\")")
    return reason


def pytest_collection_modifyitems(config, items):
    for item in items:
        one_node_reason(item)  # a marker without a reason fails the run at once
        marker = item.get_closest_marker("sqlite_only")
        if marker is not None and ON_POSTGRES:
            item.add_marker(pytest.mark.skip(reason=f"ran in the SQLite pass: {marker.args[0]}"))


def pytest_runtest_setup(item):
    item.stash[_servers_before] = len(tandem_server.CREATED)


_servers_before = pytest.StashKey[int]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failing test's report ends with the logs of the servers it started and of the shared
    one it used: a failure seen only in CI is explained by what the server said."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    servers = tandem_server.CREATED[item.stash.get(_servers_before, len(tandem_server.CREATED)):]
    for name in ("server", "access_server"):
        if isinstance(item.funcargs.get(name), TandemServer) and item.funcargs[name] not in servers:
            servers.append(item.funcargs[name])
    for srv in servers[:6]:
        report.sections.append((f"server log: {srv.name}", srv.log_tail(60)))


@pytest.fixture(scope="session")
def _start_server():
    """Starts extra servers with other settings; all are stopped when the run ends (those in
    `owner`, a list, also when their owner says so)."""
    if EXTERNAL:
        pytest.skip("starts servers of its own (TANDEM_E2E_BASE_URL runs the shared server's tests)")
    started: list[TandemServer] = []

    def start(owner: list[TandemServer] | None = None, **settings) -> TandemServer:
        server = TandemServer(**settings)
        started.append(server)
        if owner is not None:
            owner.append(server)
        try:
            return server.start()
        except ServerStartError as e:
            failure = str(e)
        pytest.fail(failure, pytrace=False)

    yield start
    for s in started:
        s.cleanup()


@pytest.fixture(scope="session")
def access_server(_start_server) -> TandemServer:
    """A server with an operator key for the access tests (issue 28). `--durability off`:
    who may do what does not depend on fsync, and the matrix makes thousands of changes."""
    return _start_server(typing_pause=SHARED_TYPING_PAUSE, name="access",
                         extra_args=("--admin-key", ADMIN_KEY, "--durability", "off"))


if EXTERNAL:
    @pytest.fixture
    def servers(_start_server):
        return _start_server

    @pytest.fixture
    def server(_start_server):
        return _start_server

    @pytest.fixture
    def base(request) -> str:
        if one_node_reason(request.node) is not None:
            pytest.skip("needs one process, not a balancer in front (`one_node`)")
        return EXTERNAL

elif NODES == 1:
    @pytest.fixture(scope="session")
    def servers(_start_server):
        """`servers(**settings)` starts a server with other settings (`TandemServer`'s
        arguments); all are stopped when the run ends."""
        return _start_server

    @pytest.fixture(scope="session")
    def server(servers) -> TandemServer:
        return servers(typing_pause=SHARED_TYPING_PAUSE, name="shared")

    @pytest.fixture(scope="session")
    def base(server) -> str:
        return server.base

else:
    # Two nodes: `server`, `base` and `servers` are per test, so that a test marked
    # `one_node` gets a one-node server. A server a test starts through `servers` is stopped
    # when the test ends: two nodes hold twice the database connections, and a run's worth
    # of them would exceed the test PostgreSQL's max_connections.
    @pytest.fixture
    def servers(request, _start_server):
        """`servers(**settings)` starts a server with other settings (`TandemServer`'s
        arguments), as one node (`one_node=True`) in a test marked `one_node`."""
        mine: list[TandemServer] = []
        one_node = one_node_reason(request.node) is not None

        def start(**settings) -> TandemServer:
            if one_node:
                settings.setdefault("one_node", True)
            return _start_server(owner=mine, **settings)
        yield start
        for s in mine:
            s.cleanup()

    @pytest.fixture(scope="session")
    def shared_server(_start_server) -> TandemServer:
        return _start_server(typing_pause=SHARED_TYPING_PAUSE, name="shared")

    @pytest.fixture(scope="session")
    def shared_one_node_server(_start_server) -> TandemServer:
        """The shared server's twin as one node, for tests marked `one_node`."""
        return _start_server(typing_pause=SHARED_TYPING_PAUSE, name="shared-one-node", one_node=True)

    @pytest.fixture
    def server(request) -> TandemServer:
        if one_node_reason(request.node) is not None:
            return request.getfixturevalue("shared_one_node_server")
        return request.getfixturevalue("shared_server")

    @pytest.fixture
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
