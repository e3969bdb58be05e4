#!/usr/bin/env bash
# CI stage: builds the image from the real Dockerfile with no image registry (the base images
# come from scripts/docker-images.sh), runs it on a named volume until its HEALTHCHECK says
# healthy, edits and undoes with curl, stops it (exit 0, graceful), and checks that a new
# container on the same volume finds the text and both changes. Starts dockerd if none
# answers and stops it again; every wait has a deadline. Ends with `docker: N passed, 0 failed`.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=tandem:ci
RUN_ID=tandem-ci-$$
VOLUME=$RUN_ID-data
BUILD_TIMEOUT=${TANDEM_DOCKER_BUILD_TIMEOUT:-1500}
LOG=$(mktemp -d /tmp/tandem-docker.XXXXXX)
STARTED=$(date +%s)
STAGE=docker
source scripts/lib/dockerd.sh

passed=0
containers=()
pass() { passed=$((passed + 1)); echo "  ok: $*"; }
fail() {
    echo "docker: FAILED: $*" >&2
    echo "docker: $passed passed, 1 failed"
    exit 1
}
dump_logs() {
    local c
    for c in "${containers[@]}"; do
        echo "--- docker logs $c (last 30 lines)" >&2
        docker logs --tail 30 "$c" >&2 2>&1 || true
    done
}
cleanup() {
    local status=$?
    [ $status -eq 0 ] || dump_logs
    local c
    for c in "${containers[@]}"; do timeout 30 docker rm -f "$c" >/dev/null 2>&1 || true; done
    timeout 30 docker volume rm "$VOLUME" >/dev/null 2>&1 || true
    dockerd_stop
    rm -rf "$LOG"
    exit $status
}
trap cleanup EXIT
# A timeout's SIGTERM or a Ctrl-C still cleans up.
trap 'exit 130' INT TERM

# --- What the stage needs, and a daemon (scripts/lib/dockerd.sh).
dockerd_install_needs
dockerd_ensure
pass "docker daemon answers ($(docker version -f '{{.Server.Version}}'), $(docker info -f '{{.Driver}}'))"

# --- The base images, made offline under the names the Dockerfile uses.
timeout 900 ./scripts/docker-images.sh debian:bookworm-slim swift:6.3-bookworm || fail "making the base images (scripts/docker-images.sh)"
pass "base images debian:bookworm-slim and swift:6.3-bookworm are present"

# --- The real Dockerfile, with the classic builder (BuildKit would want its frontend image
# from a registry); --network host lets apt reach the Debian mirror.
t0=$(date +%s)
echo "docker: docker build (log: $LOG/build.log)"
if ! DOCKER_BUILDKIT=0 timeout "$BUILD_TIMEOUT" docker build --network host -t "$IMAGE" . >"$LOG/build.log" 2>&1; then
    tail -n 40 "$LOG/build.log" >&2
    fail "docker build of the Dockerfile"
fi
pass "docker build of the Dockerfile ($(($(date +%s) - t0)) s, $(docker image inspect -f '{{.Size}}' "$IMAGE" | awk '{printf "%d MB", $1/1e6}'))"
# Dangling images older than a day: earlier builds of changed sources. Newer ones stay as the
# layer cache of the next run.
docker image prune -f --filter until=24h >/dev/null || true

[ "$(docker image inspect -f '{{.Config.User}}' "$IMAGE")" = 10001:10001 ] || fail "the image does not run as user 10001"
[ -n "$(docker image inspect -f '{{if .Config.Healthcheck}}{{.Config.Healthcheck.Test}}{{end}}' "$IMAGE")" ] || fail "the image has no HEALTHCHECK"
pass "the image runs as 10001:10001 and has a HEALTHCHECK"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Runs a container of the image on the volume, on 127.0.0.1:$1, with a 1 s health interval.
start_container() {
    local name=$RUN_ID-$2
    containers+=("$name")
    docker run -d --name "$name" --network host -v "$VOLUME:/data" \
        -e TANDEM_HOST=127.0.0.1 -e TANDEM_PORT="$1" \
        --health-interval=1s --health-start-period=5s "$IMAGE" >/dev/null \
        || fail "docker run $name"
    local deadline=$(($(date +%s) + 60)) status=""
    while [ "$(date +%s)" -lt $deadline ]; do
        [ "$(docker inspect -f '{{.State.Running}}' "$name")" = true ] \
            || fail "$name exited before it was healthy (exit $(docker inspect -f '{{.State.ExitCode}}' "$name"))"
        status=$(docker inspect -f '{{.State.Health.Status}}' "$name")
        [ "$status" = healthy ] && break
        sleep 0.5
    done
    [ "$status" = healthy ] || fail "$name's HEALTHCHECK is '$status' after 60 s"
    pass "$name is healthy (its HEALTHCHECK, tandem healthcheck, on port $1)"
}

# api METHOD PATH [TOKEN] [JSON]: sets STATUS and BODY.
api() {
    local args=(-s -S --max-time 10 -o "$LOG/body" -w '%{http_code}' -X "$1" "$BASE$2")
    [ -z "${3:-}" ] || args+=(-H "Authorization: Bearer $3")
    [ -z "${4:-}" ] || args+=(-H 'Content-Type: application/json' -d "$4")
    STATUS=$(curl "${args[@]}") || STATUS="curl-error"
    BODY=$(cat "$LOG/body" 2>/dev/null || true)
}
expect() { # expect STATUS what
    [ "$STATUS" = "$1" ] || fail "$2: expected $1, got $STATUS: $BODY"
    pass "$2 ($STATUS)"
}
json() { python3 -c "import json, sys; d = json.loads(sys.argv[1]); print($2)" "$1"; }

# Stops a container with docker stop and checks it ended by itself, gracefully.
stop_container() {
    local name=$RUN_ID-$1
    timeout 60 docker stop -t 20 "$name" >/dev/null || fail "docker stop $name"
    local code; code=$(docker inspect -f '{{.State.ExitCode}}' "$name")
    [ "$code" = 0 ] || fail "$name exited $code after docker stop, not 0 (137 is SIGKILL after the grace time)"
    docker logs "$name" >"$LOG/$1.log" 2>&1
    grep -q "shutting down" "$LOG/$1.log" && grep -q "stopped" "$LOG/$1.log" \
        || { tail -n 10 "$LOG/$1.log" >&2; fail "$name's log shows no graceful shutdown ('shutting down' then 'stopped')"; }
    pass "docker stop: $name exited 0 and logged a graceful shutdown"
}

docker volume create "$VOLUME" >/dev/null
PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
start_container "$PORT" first
[ "$(docker exec "$RUN_ID-first" id -u)" = 10001 ] || fail "the server does not run as uid 10001"
pass "the server runs as uid 10001"

api POST /sessions "" '{"name": "Ada"}'; expect 201 "POST /sessions (Ada)"
ADA=$(json "$BODY" 'd["token"]')
api POST /sessions "" '{"name": "Grace"}'; expect 201 "POST /sessions (Grace)"
GRACE=$(json "$BODY" 'd["token"]')
api POST /documents "" '{"id": "docker-ci", "title": "Docker CI"}'; expect 201 "POST /documents"
api POST /documents/docker-ci/edits "$ADA" '{"insert": "Hello from Ada. ", "at": 0}'; expect 200 "Ada's edit"
api POST /documents/docker-ci/edits "$GRACE" '{"insert": "Hi from Grace.", "at": 16}'; expect 200 "Grace's edit"
api POST /documents/docker-ci/undo "$ADA"; expect 200 "Ada's undo"
api GET /documents/docker-ci/text
[ "$STATUS" = 200 ] && [ "$BODY" = "Hi from Grace." ] || fail "text after the undo: $STATUS [$BODY]"
pass "the text after the undo is [Hi from Grace.]"
api GET '/documents/docker-ci/edits?since=0'; expect 200 "GET edits?since=0 before the restart"
BEFORE=$BODY

stop_container first

# A new container on the same volume (and a new port): the store on /data is all it has.
PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
start_container "$PORT" second
api GET /documents/docker-ci/text
[ "$STATUS" = 200 ] && [ "$BODY" = "Hi from Grace." ] || fail "text in the new container: $STATUS [$BODY]"
pass "the new container has the text [Hi from Grace.]"
api GET '/documents/docker-ci/edits?since=0'; expect 200 "GET edits?since=0 in the new container"
kinds=$(json "$BODY" '" ".join(c["kind"] for c in d)')
[ "$kinds" = "edit edit undo" ] || fail "the change list after the restart has kinds [$kinds], not [edit edit undo]: $BODY"
[ "$(json "$BODY" '[c["revision"] for c in d]')" = "[1, 2, 3]" ] || fail "the change list's revisions are not 1, 2, 3: $BODY"
[ "$(json "$BODY" 'json.dumps(d, sort_keys=True)')" = "$(json "$BEFORE" 'json.dumps(d, sort_keys=True)')" ] \
    || fail "the change list differs after the restart: before $BEFORE, after $BODY"
pass "the change list survived: Ada's edit, Grace's edit and Ada's undo, as before the restart"

stop_container second

echo "docker: stage took $(($(date +%s) - STARTED)) s"
echo "docker: $passed passed, 0 failed"
