# Sourced by scripts/test-docker.sh and scripts/test-compose.sh: what both stages need from
# the machine (Debian packages, a Docker daemon) and the daemon's stop. The caller defines
# `fail` and sets STAGE (the prefix of its messages); `dockerd_stop` stops only a daemon
# that `dockerd_ensure` started.

SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
DOCKERD_DIR=/tmp/tandem-dockerd
dockerd_pid=""

# Installs Debian's docker.io (dockerd; a `docker` client may already be in /usr/local/bin),
# debootstrap, curl and python3 when missing, and the packages named as arguments.
dockerd_install_needs() {
    local need=("$@")
    command -v dockerd >/dev/null || need+=(docker.io)
    command -v debootstrap >/dev/null || need+=(debootstrap)
    command -v curl >/dev/null || need+=(curl)
    command -v python3 >/dev/null || need+=(python3)
    if [ ${#need[@]} -gt 0 ]; then
        echo "$STAGE: apt-get install ${need[*]}"
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive timeout 600 $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
    fi
    command -v docker >/dev/null || fail "no docker client after installing docker.io"
}

# The running daemon, or one started here with no default bridge and no iptables (containers
# use the host's network, or compose's own bridge network for its project).
dockerd_ensure() {
    timeout 10 docker info >/dev/null 2>&1 && return 0
    mkdir -p "$DOCKERD_DIR"
    echo "$STAGE: starting dockerd (log: $DOCKERD_DIR/dockerd.log)"
    $SUDO dockerd --bridge=none --iptables=false --pidfile "$DOCKERD_DIR/dockerd.pid" \
        >"$DOCKERD_DIR/dockerd.log" 2>&1 &
    dockerd_pid=$!
    for _ in $(seq 120); do
        timeout 5 docker info >/dev/null 2>&1 && return 0
        kill -0 "$dockerd_pid" 2>/dev/null || { tail -n 20 "$DOCKERD_DIR/dockerd.log" >&2; fail "dockerd exited"; }
        sleep 0.5
    done
    tail -n 20 "$DOCKERD_DIR/dockerd.log" >&2
    fail "dockerd did not answer within 60 s"
}

# Stops the daemon `dockerd_ensure` started, if it did; it stops its containerd and containers
# first, so it gets 30 s before a KILL.
dockerd_stop() {
    [ -n "$dockerd_pid" ] || return 0
    $SUDO kill -TERM "$dockerd_pid" 2>/dev/null || true
    for _ in $(seq 60); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$dockerd_pid" 2>/dev/null; then
        echo "$STAGE: dockerd did not stop, killing it" >&2
        $SUDO kill -KILL "$dockerd_pid" || true
    fi
}
