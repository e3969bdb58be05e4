"""The two-node harness's load balancer: a local nginx rendered from `deploy/nginx.conf`.

With `TANDEM_E2E_NODES=2` (and `TANDEM_E2E_DATABASE=postgres`) a `TandemServer` runs two
`tandem serve` processes on one PostgreSQL schema and puts this nginx in front of them
(`tandem_server.py`). The configuration is the very file `compose.yaml` mounts, with three
kinds of lines swapped: the two `server tandemN:8080` lines point at the nodes' loopback
ports, `listen 8080;` becomes a free loopback port, and the temp
paths move into the server's work folder; with `TANDEM_E2E_ROUTING=round-robin` the
`hash … consistent` line goes too. nginx (Debian's `nginx-light`) runs in the
foreground as the current user, one process (`master_process off`), its pid file, error log
and access log (which names the node of each request) in that folder too.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

from healthz import kill_and_wait, start_with_retries, terminate_and_wait, wait_healthy

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "deploy" / "nginx.conf"
# The names compose.yaml gives the nodes, in the order of the template's `server` lines.
NODE_NAMES = ("tandem1", "tandem2")


class NginxError(RuntimeError):
    pass


def nginx_binary() -> str:
    found = os.environ.get("TANDEM_NGINX") or shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if not found:
        raise NginxError("TANDEM_E2E_NODES=2 needs nginx: `apt-get install nginx-light` "
                         "(scripts/test.sh installs it), or point TANDEM_NGINX at one")
    return found


def routing() -> str:
    """How the balancer picks a node: `hash` (the file as written: a document's requests to
    one node) or `round-robin` (`TANDEM_E2E_ROUTING=round-robin`: each request to the next)."""
    value = os.environ.get("TANDEM_E2E_ROUTING", "hash")
    if value not in ("hash", "round-robin"):
        raise NginxError(f"TANDEM_E2E_ROUTING must be hash or round-robin, not {value!r}")
    return value


def render(template: str, upstreams: list[int], port: int, prefix: Path) -> str:
    """`deploy/nginx.conf` for loopback: the nodes at `upstreams` (their ports, in the
    order of NODE_NAMES), listening on 127.0.0.1:`port`, temp files under `prefix`. Each
    line it swaps must be there exactly once, so the file and the harness cannot drift."""
    if len(upstreams) != len(NODE_NAMES):
        raise ValueError(f"{len(NODE_NAMES)} upstream ports expected, got {upstreams}")
    out = template

    def swap(pattern: str, replacement: str, text: str) -> str:
        new, n = re.subn(pattern, replacement, text, flags=re.MULTILINE)
        if n != 1:
            raise NginxError(f"{TEMPLATE}: expected exactly one line matching {pattern!r}, found {n}")
        return new

    for name, upstream in zip(NODE_NAMES, upstreams):
        out = swap(rf"^(\s*server\s+){name}:8080\b", rf"\g<1>127.0.0.1:{upstream}", out)
    out = swap(r"^(\s*)listen\s+8080;", rf"\g<1>listen 127.0.0.1:{port};", out)
    if routing() == "round-robin":
        out = swap(r"^(\s*)hash\s+\$tandem_route\s+consistent;", r"\g<1># round robin (TANDEM_E2E_ROUTING)", out)
    temp = "".join(f"    {directive} {prefix / folder};\n" for directive, folder in (
        ("client_body_temp_path", "client_body"), ("proxy_temp_path", "proxy"),
        ("fastcgi_temp_path", "fastcgi"), ("uwsgi_temp_path", "uwsgi"), ("scgi_temp_path", "scgi")))
    out = swap(r"^http\s*\{\n", "http {\n" + temp, out)
    return out


class Nginx:
    """One local nginx in `prefix` (a folder of the server's work folder)."""

    def __init__(self, prefix: Path):
        self.prefix = prefix
        self.conf_path = prefix / "nginx.conf"
        self.log_path = prefix / "access.log"     # nginx's stdout: the access log
        self.error_log = prefix / "error.log"
        self.port = 0
        self.process: subprocess.Popen | None = None
        self._quitting = False

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def command(self) -> list[str]:
        return [nginx_binary(), "-p", f"{self.prefix}/", "-c", str(self.conf_path), "-e", str(self.error_log),
                "-g", f"daemon off; master_process off; pid {self.prefix / 'nginx.pid'}; error_log {self.error_log} notice;"]

    def write_config(self, upstreams: list[int], port: int) -> None:
        self.prefix.mkdir(parents=True, exist_ok=True)
        self.conf_path.write_text(render(TEMPLATE.read_text(), upstreams, port, self.prefix))

    def start(self, upstreams: list[int], free_port, attempts: int = 3) -> "Nginx":
        """Starts nginx in front of `upstreams` and waits until a request through it
        reaches a node's /healthz."""
        def launch() -> tuple[bool, str]:
            self.port = free_port()
            self.write_config(upstreams, self.port)
            with open(self.log_path, "ab") as log:
                self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT,
                                                stdin=subprocess.DEVNULL, start_new_session=True)
            return wait_healthy(self.process, self.base + "/healthz", deadline=time.monotonic() + 30, what="nginx")

        failure = start_with_retries(launch, self.stop, self.log_tail, attempts)
        if not failure:
            return self
        raise NginxError(f"nginx in front of ports {upstreams} did not answer /healthz: {failure}\n"
                         f"--- nginx ({self.prefix}) ---\n{self.log_tail()}")

    def quit(self) -> None:
        """SIGQUIT: stop accepting connections, finish the requests in flight, then exit
        (`stop` waits for it)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            self._quitting = True

    def kill(self) -> None:
        if self.process is None:
            return
        kill_and_wait(self.process)
        self.process = None
        self._quitting = False

    def stop(self) -> None:
        p = self.process
        if p is None:
            return
        if self._quitting:  # the requests in flight end with the nodes' answers
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        terminate_and_wait(p, timeout=10)  # without a master process: close everything, exit
        self.process = None
        self._quitting = False

    def log_tail(self, lines: int = 20) -> str:
        parts = []
        for label, path in (("error log", self.error_log), ("access log", self.log_path)):
            try:
                text = "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
            except FileNotFoundError:
                text = "(none)"
            parts.append(f"--- nginx {label} ({path}) ---\n{text}")
        return "\n".join(parts)
