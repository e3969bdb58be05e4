"""Starting and stopping the real `tandem serve` binary for the end-to-end suite."""

from __future__ import annotations

import os
import uuid
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from cluster import Nginx, NginxError
from healthz import kill_and_wait, signal_if_running, start_with_retries, terminate_and_wait, wait_healthy

REPO = Path(__file__).resolve().parents[2]

# The operator key (`--admin-key`) of the access tests' server; the shared server has none.
ADMIN_KEY = "e2e-operator-key-7f3c9a"

# Every server (or cluster) created, in order: a failing test's report shows the logs of
# those it started (conftest.py), since the folders holding them go when the run ends.
CREATED: list["TandemServer"] = []


def binary_path() -> Path:
    """The server binary: `$TANDEM_BIN`, else this checkout's debug build."""
    override = os.environ.get("TANDEM_BIN")
    return Path(override) if override else REPO / ".build" / "debug" / "tandem"


def free_port() -> int:
    # Bound and released at once; the server binds it a moment later. A clash is
    # possible but shows up as a clear start-up failure, never as a wrong result.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ServerStartError(RuntimeError):
    pass


ON_POSTGRES = os.environ.get("TANDEM_E2E_DATABASE") == "postgres"

# TANDEM_E2E_NODES=2 (with TANDEM_E2E_DATABASE=postgres): every server on PostgreSQL is two
# `tandem serve` nodes on one schema behind a local nginx rendered from deploy/nginx.conf
# (cluster.py), so requests alternate between the nodes. A server made with one_node=True
# (or started for a test marked `one_node`) stays one process, still on PostgreSQL.
NODES = int(os.environ.get("TANDEM_E2E_NODES") or "1")
# How the nodes share documents on PostgreSQL (`--cluster`): leases (the default) or sequenced.
CLUSTER = os.environ.get("TANDEM_E2E_CLUSTER") or ""

if NODES not in (1, 2):
    raise RuntimeError(f"TANDEM_E2E_NODES={NODES}: 1 or 2 nodes are supported")
if NODES == 2 and not ON_POSTGRES:
    raise RuntimeError("TANDEM_E2E_NODES=2 needs TANDEM_E2E_DATABASE=postgres: the nodes share one PostgreSQL schema")


class TandemServer:
    """One `tandem serve` process on a free loopback port with its own data folder.

    Under TANDEM_E2E_NODES=2 (on PostgreSQL, unless `one_node` or `on_postgres=False`) it is
    two such processes, `nodes`, on the same schema with the same arguments, each with its
    own port and data folder, behind a local nginx: `base`, `port` and `process` are nginx's,
    and `start`, `stop`, `kill`, `restart` and `cleanup` act on both nodes and nginx. Each
    node is a one-process TandemServer; its `restart` keeps its port, so nginx finds it."""

    def __init__(self, *, typing_pause: float | None = None, session_timeout: float | None = None,
                 extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None,
                 name: str = "tandem", on_postgres: bool = True, one_node: bool = False,
                 _workdir: Path | None = None, _schema: str | None = None):
        self.binary = binary_path()
        self.typing_pause = typing_pause
        self.session_timeout = session_timeout
        self.extra_args = extra_args
        self.extra_env = env or {}
        self.name = name
        self.port = 0
        self.process: subprocess.Popen | None = None
        if _workdir is None:
            self.workdir = Path(tempfile.mkdtemp(prefix=f"tandem-e2e-{name}-"))
        else:  # a node of a two-node server: a folder in the server's
            self.workdir = _workdir
            self.workdir.mkdir(parents=True, exist_ok=True)
        self.data = self.workdir / "data"
        self.log_path = self.workdir / "server.log"
        # With TANDEM_E2E_DATABASE=postgres every server keeps its data in a PostgreSQL
        # schema of its own; a test that needs the SQLite file opts out (on_postgres=False).
        self.on_postgres = on_postgres
        self.schema = _schema or "e2e_" + uuid.uuid4().hex[:12]
        self.one_node = one_node
        self._keep_port = False  # a node restarted alone comes back on the port nginx knows
        self.nodes: list[TandemServer] = []
        self.nginx: Nginx | None = None
        if _workdir is None:
            CREATED.append(self)
        if NODES == 2 and ON_POSTGRES and on_postgres and not one_node:
            self.nodes = [TandemServer(typing_pause=typing_pause, session_timeout=session_timeout,
                                       extra_args=extra_args, env=env, name=f"{name}-node{i}", one_node=True,
                                       _workdir=self.workdir / f"node{i}", _schema=self.schema)
                          for i in (1, 2)]
            self.nginx = Nginx(self.workdir / "nginx")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base + path

    def public_dir(self) -> Path:
        wanted = Path(os.environ.get("TANDEM_PUBLIC", REPO / "Public"))
        if wanted.is_dir():
            return wanted
        fallback = self.workdir / "Public"
        fallback.mkdir(exist_ok=True)
        (fallback / "index.html").write_text("<!doctype html><title>Tandem</title>\n")
        return fallback

    def start(self, attempts: int = 3) -> "TandemServer":
        if self.nodes:
            return self._start_nodes()
        if not self.binary.is_file() or not os.access(self.binary, os.X_OK):
            raise ServerStartError(
                f"Tandem binary not found or not executable at {self.binary}. "
                "Run `swift build` in the repository first, or point TANDEM_BIN at a built `tandem`.")
        args: list[str] = []

        def launch() -> tuple[bool, str]:
            nonlocal args
            self.port = self.port if self._keep_port and self.port else free_port()
            self.data.mkdir(parents=True, exist_ok=True)
            args = [str(self.binary), "serve", "--host", "127.0.0.1", "--port", str(self.port),
                    "--data", str(self.data), "--public", str(self.public_dir()),
                    "--log-level", "warning"]
            if self.typing_pause is not None:
                args += ["--typing-pause", _num(self.typing_pause)]
            if self.session_timeout is not None:
                args += ["--session-timeout", _num(self.session_timeout)]
            # The per-client rate limits far above what the suite does from 127.0.0.1: the
            # access matrix alone makes ~1,600 documents and thousands of links in ~30 s, a pace
            # no default that stops an attack allows. A test's own `--rate-limit NAME=…`
            # (later on the line) replaces its one limit; test_client_limits.py tests them.
            args += [a for name in ("sessions", "documents", "pasteboards", "links", "auth")
                     for a in ("--rate-limit", f"{name}=1000000/1")]
            args += list(self.extra_args)
            if ON_POSTGRES and self.on_postgres and "--database" not in self.extra_args:
                args += ["--database", os.environ["TANDEM_TEST_DATABASE_URL"], "--database-schema", self.schema]
                if CLUSTER and "--cluster" not in self.extra_args:
                    args += ["--cluster", CLUSTER]
            env = dict(os.environ, **self.extra_env)
            with open(self.log_path, "ab") as log:
                try:
                    self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env,
                                                    stdin=subprocess.DEVNULL, start_new_session=True)
                except OSError as e:  # e.g. "Text file busy" while the binary is being rebuilt
                    raise ServerStartError(f"cannot run {self.binary}: {e}") from None
            return wait_healthy(self.process, self.url("/healthz"), deadline=time.monotonic() + 30)

        failure = start_with_retries(launch, self.stop, self.log_tail, attempts)
        if not failure:
            return self
        raise ServerStartError(f"`{' '.join(args)}` did not become healthy: {failure}\n"
                               f"--- server log ({self.log_path}) ---\n{self.log_tail()}")

    def _start_nodes(self) -> "TandemServer":
        """Both nodes, each waited for on its own /healthz, then nginx in front of them,
        waited for on /healthz through it. Fresh ports each time, as for one process."""
        try:
            for node in self.nodes:
                node._keep_port = False
                node.start()
                node._keep_port = True
            self.nginx.start([node.port for node in self.nodes], free_port)
        except (ServerStartError, NginxError) as e:
            self.stop()
            raise ServerStartError(f"two-node server {self.name}: {e}") from None
        self.port = self.nginx.port
        self.process = self.nginx.process
        return self

    def restart(self) -> "TandemServer":
        """Stops the server gracefully and starts it again on the same data folder."""
        self.stop()
        return self.start()

    def kill(self) -> None:
        """`kill -9`: the process gets no chance to flush or close anything. Two nodes: nginx
        first, so that a client sees its connection break as with one process (not a 502 from
        a proxy outliving its nodes), then both nodes at once."""
        if self.nodes:
            self.nginx.kill()
            for node in self.nodes:
                signal_if_running(node.process, signal.SIGKILL)
            for node in self.nodes:
                node.kill()
            self.process = None
            return
        if self.process is None:
            return
        kill_and_wait(self.process)
        self.process = None

    def log_tail(self, lines: int = 40) -> str:
        if self.nodes:
            return "\n".join([f"--- {node.name} ({node.log_path}) ---\n{node.log_tail(lines)}" for node in self.nodes]
                             + [self.nginx.log_tail(lines // 2)])
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except FileNotFoundError:
            return "(no log)"

    def stop(self) -> None:
        if self.nodes:
            # As one process stops: nginx stops accepting first (SIGQUIT: what it has in
            # flight goes on), then both nodes finish their work and end their streams
            # (SIGTERM), and nginx exits once it has passed the last answer on.
            self.nginx.quit()
            for node in self.nodes:
                signal_if_running(node.process, signal.SIGTERM)
            for node in self.nodes:
                node.stop()
            self.nginx.stop()
            self.process = None
            return
        p = self.process
        if p is None:
            return
        terminate_and_wait(p, timeout=15)
        self.process = None

    def cleanup(self) -> None:
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)
