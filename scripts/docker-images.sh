#!/usr/bin/env bash
# Makes the images the Dockerfile and compose.yaml use without an image registry, under the
# names a user with Docker Hub pulls, so CI runs both files unchanged offline:
#   debian:bookworm-slim  a debootstrap'd minbase Debian 12 from the configured apt mirror;
#   swift:6.3-bookworm    that Debian plus the official image's build packages, the local
#                         toolchain in /usr (as the official image has it) and git mirrors of
#                         the packages Package.resolved names, with the url.insteadOf that
#                         points github.com at them;
#   postgres:15           that Debian plus Debian's postgresql-15 and an entrypoint that does
#                         what compose.yaml asks of the official image (POSTGRES_USER,
#                         POSTGRES_PASSWORD, POSTGRES_DB on first start, listen on all
#                         addresses with password auth, pg_isready, fast shutdown);
#   nginx:1.22            that Debian plus Debian's nginx 1.22, logging to stdout/stderr.
# Usage: docker-images.sh [--force] [IMAGE...]; with no IMAGE, all four. An image already
# present is kept; --force makes the named ones again (the slim base only if named too).
# Needs a running dockerd, root, debootstrap, and the toolchain at $SWIFT_TOOLCHAIN (default
# /opt/swift).
set -euo pipefail
cd "$(dirname "$0")/.."

SLIM=debian:bookworm-slim
SWIFT=swift:6.3-bookworm
POSTGRES=postgres:15
NGINX=nginx:1.22
TOOLCHAIN=${SWIFT_TOOLCHAIN:-/opt/swift}
FORCE=0; [ "${1:-}" = --force ] && { FORCE=1; shift; }
WANT=("$@")
[ ${#WANT[@]} -gt 0 ] || WANT=("$SLIM" "$SWIFT" "$POSTGRES" "$NGINX")
for w in "${WANT[@]}"; do
    case $w in "$SLIM" | "$SWIFT" | "$POSTGRES" | "$NGINX") ;; *) echo "docker-images: unknown image $w" >&2; exit 2 ;; esac
done

wanted() { local w; for w in "${WANT[@]}"; do [ "$w" = "$1" ] && return 0; done; return 1; }
# The slim base is also made when an image built on it is wanted and it is missing.
have() {
    if [ "$1" = "$SLIM" ] && ! wanted "$SLIM"; then docker image inspect "$1" >/dev/null 2>&1; return; fi
    [ $FORCE -eq 0 ] && docker image inspect "$1" >/dev/null 2>&1
}
say() { echo "docker-images: $*"; }
fail() { echo "docker-images: FAILED: $*" >&2; exit 1; }

WORK=$(mktemp -d /tmp/tandem-images.XXXXXX)
BUILDER=""
cleanup() {
    [ -z "$BUILDER" ] || docker rm -f "$BUILDER" >/dev/null 2>&1 || true
    rm -rf "$WORK"
}
trap cleanup EXIT
# A timeout's SIGTERM or a Ctrl-C still cleans up.
trap 'exit 130' INT TERM

# The Debian archive apt uses here (deb822 .sources or one-line .list), for the bookworm suite.
debian_mirror() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk '
            function flush() { if (suites ~ /(^| )bookworm( |$)/ && uri != "") { print uri; found = 1; exit } uri = ""; suites = "" }
            /^[ \t]*$/ { flush(); next }
            /^URIs:/ { uri = $2 }
            /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites = $0 }
            END { if (!found) flush() }
        ' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        # deb [options] URI suite components...
        sed -E 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" && $3 == "bookworm" { print $2 }'
    done
}

if have "$SLIM"; then
    say "$SLIM is present"
else
    MIRROR=$(debian_mirror | head -n 1)
    [ -n "$MIRROR" ] || fail "no bookworm mirror in /etc/apt/sources.list{,.d}"
    say "debootstrap --variant=minbase bookworm from $MIRROR"
    ROOT=$WORK/slim
    debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 \
        || { tail -n 20 "$WORK/debootstrap.log" >&2; fail "debootstrap"; }
    # The host's deb822 Debian sources also carry bookworm-updates and -security, as the
    # official image's do.
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        cp /etc/apt/sources.list.d/debian.sources "$ROOT/etc/apt/sources.list.d/debian.sources"
        rm -f "$ROOT/etc/apt/sources.list"
    fi
    # Guard the deletions below: they must only ever touch the new root, never the host.
    if [ -z "$WORK" ] || [ "$ROOT" != "$WORK/slim" ] || [ ! -d "$ROOT/etc/apt/apt.conf.d" ]; then
        fail "debootstrap made no root at $ROOT"
    fi
    # What makes the official image slim: apt keeps no package caches; dpkg installs no
    # documentation, manuals or translations (and those debootstrap installed go).
    printf '%s\n' \
        'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };' \
        'APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };' \
        'Dir::Cache::pkgcache "";' 'Dir::Cache::srcpkgcache "";' >"$ROOT/etc/apt/apt.conf.d/docker-clean"
    echo 'Acquire::Languages "none";' >"$ROOT/etc/apt/apt.conf.d/docker-no-languages"
    printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
        'path-exclude /usr/share/groff/*' 'path-exclude /usr/share/info/*' \
        'path-exclude /usr/share/linda/*' 'path-exclude /usr/share/lintian/*' \
        'path-exclude /usr/share/locale/*' 'path-include /usr/share/locale/locale.alias' \
        'path-exclude /usr/share/man/*' >"$ROOT/etc/dpkg/dpkg.cfg.d/docker"
    find "$ROOT/usr/share/doc" -type f ! -name copyright -delete
    find "$ROOT/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
    for d in man info groff lintian linda; do
        [ ! -d "$ROOT/usr/share/$d" ] || find "$ROOT/usr/share/$d" -mindepth 1 -delete
    done
    find "$ROOT/var/lib/apt/lists" "$ROOT/var/cache/apt" -type f -delete
    rm -f "$ROOT"/var/log/*.log
    tar -C "$ROOT" --numeric-owner -c . | docker import --change 'CMD ["bash"]' - "$SLIM" >/dev/null
    rm -rf "$ROOT"
    say "imported $SLIM ($(docker image inspect -f '{{.Size}}' "$SLIM" | awk '{printf "%d MB", $1/1e6}'))"
fi

if ! wanted "$SWIFT"; then
    :
elif have "$SWIFT"; then
    say "$SWIFT is present"
else
    [ -x "$TOOLCHAIN/usr/bin/swift" ] || fail "no Swift toolchain at $TOOLCHAIN"
    ls "$TOOLCHAIN"/usr/lib/swift_static/linux/libswiftCore.a >/dev/null \
        || fail "$TOOLCHAIN has no static stdlib, which --static-swift-stdlib needs"

    # Only the repositories this package resolves to, copied from where git's insteadOf
    # sends their github.com URLs on this machine (e.g. /opt/swift-packages).
    if [ ! -f Package.resolved ]; then
        swift package resolve >"$WORK/resolve.log" 2>&1 || { cat "$WORK/resolve.log" >&2; fail "swift package resolve"; }
    fi
    mapfile -t urls < <(python3 -c 'import json; [print(p["location"]) for p in json.load(open("Package.resolved"))["pins"]]')
    [ ${#urls[@]} -gt 0 ] || fail "Package.resolved names no packages"
    prefix=$(git ls-remote --get-url https://github.com/)
    if [ "$prefix" = https://github.com/ ] || [ ! -d "$prefix" ]; then
        fail "git has no url.insteadOf sending https://github.com/ to a local mirror"
    fi
    for url in "${urls[@]}"; do
        src=$(git ls-remote --get-url "$url")
        [ -d "$src" ] || src=$src.git
        [ -d "$src" ] || fail "no local mirror of $url (looked for $src)"
        rel=${src#"$prefix"}
        mkdir -p "$WORK/mirrors/$(dirname "$rel")"
        cp -a "$(readlink -f "$src")" "$WORK/mirrors/$rel"
        say "mirror $url -> $prefix$rel"
    done

    # The official swift:6.3-bookworm image's packages, without libpython3-dev (lldb's,
    # which this image leaves out).
    packages=(binutils-gold gcc git libc6-dev libcurl4-openssl-dev libedit-dev libicu-dev
        libncurses-dev libsqlite3-dev libstdc++-12-dev libxml2-dev pkg-config tzdata
        uuid-dev zlib1g-dev)
    # Debugger and editor tooling (lldb, sourcekit-lsp, clangd, docc, swift-format) and
    # Embedded Swift are not needed to build; leaving them out saves about 1 GB of 3.4.
    excludes=(--exclude='./usr/bin/lldb*' --exclude='./usr/lib/liblldb*'
        --exclude='./usr/lib/python3*' --exclude='./usr/bin/sourcekit-lsp'
        --exclude='./usr/lib/libsourcekitdInProc.so' --exclude='./usr/bin/clangd'
        --exclude='./usr/bin/docc' --exclude='./usr/share/docc' --exclude='./usr/bin/swift-format'
        --exclude='./usr/lib/swift/embedded')
    BUILDER=tandem-swift-base-$$
    say "installing build packages and the toolchain from $TOOLCHAIN into $SWIFT"
    docker run --name "$BUILDER" --network host \
        -v "$TOOLCHAIN:/toolchain:ro" -v "$WORK/mirrors:/mirrors:ro" \
        -e DEBIAN_FRONTEND=noninteractive "$SLIM" bash -euo pipefail -c "
            apt-get update -qq
            apt-get install -y -qq --no-install-recommends ${packages[*]} >/dev/null
            rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb
            tar -C /toolchain $(printf '%q ' "${excludes[@]}")-c ./usr | tar -C / -x --no-same-owner
            mkdir -p '$prefix' && cp -a /mirrors/. '$prefix'
            git config --system url.'$prefix'.insteadOf https://github.com/
            swift --version
        " >"$WORK/builder.log" 2>&1 || { tail -n 30 "$WORK/builder.log" >&2; fail "making $SWIFT"; }
    docker commit --change 'CMD ["bash"]' "$BUILDER" "$SWIFT" >/dev/null
    say "committed $SWIFT ($(docker image inspect -f '{{.Size}}' "$SWIFT" | awk '{printf "%d MB", $1/1e6}')): $(grep -m1 'Swift version' "$WORK/builder.log")"
fi

# Builds image $1 from the Dockerfile in $WORK/$2 (with the files beside it) with the classic
# builder, as scripts/test-docker.sh builds Tandem's: BuildKit would want its frontend image
# from a registry, and --network host lets apt reach the Debian mirror.
build_on_slim() {
    DOCKER_BUILDKIT=0 docker build --network host -t "$1" "$WORK/$2" >"$WORK/$2.log" 2>&1 \
        || { tail -n 30 "$WORK/$2.log" >&2; fail "making $1"; }
    say "built $1 ($(docker image inspect -f '{{.Size}}' "$1" | awk '{printf "%d MB", $1/1e6}'))"
}

if ! wanted "$POSTGRES"; then
    :
elif have "$POSTGRES"; then
    say "$POSTGRES is present"
else
    mkdir -p "$WORK/postgres"
    # What the official image's docker-entrypoint.sh does for compose.yaml: as root, make the
    # data directory the postgres user's, then drop to it; on an empty directory, initdb with
    # POSTGRES_USER as the superuser and POSTGRES_PASSWORD, password (scram) auth from the
    # network, and POSTGRES_DB created; then exec the command, so postgres is PID 1.
    cat >"$WORK/postgres/docker-entrypoint.sh" <<'ENTRYPOINT'
#!/bin/sh
set -eu
if [ "${1#-}" != "$1" ]; then set -- postgres "$@"; fi
if [ "$1" != postgres ]; then exec "$@"; fi
if [ "$(id -u)" = 0 ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"
    chown -R postgres:postgres "$PGDATA" /var/run/postgresql
    exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "error: the database is uninitialized and POSTGRES_PASSWORD is not set" >&2
        exit 1
    fi
    user=${POSTGRES_USER:-postgres}
    db=${POSTGRES_DB:-$user}
    pwfile=$(mktemp)
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    initdb -D "$PGDATA" --username="$user" --pwfile="$pwfile" --auth-local=trust \
        --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
    # Only the socket while setting up, so no client sees a half-made database.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    if [ "$db" != postgres ]; then
        psql -v ON_ERROR_STOP=1 -q --username="$user" --dbname=postgres --set db="$db" <<'SQL'
CREATE DATABASE :"db";
SQL
    fi
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    echo "docker-entrypoint: initialized $PGDATA (user $user, database $db)"
fi
exec "$@"
ENTRYPOINT
    # Debian's postgresql-common would make a cluster of its own on install: the entrypoint
    # makes the only one, in the volume. SIGINT is postgres' fast shutdown (SIGTERM is its
    # "smart" one, which waits for every client to leave), as in the official image.
    cat >"$WORK/postgres/Dockerfile" <<'DOCKERFILE'
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends postgresql-common \
    && sed -ri 's/#(create_main_cluster) .*$/\1 = false/' /etc/postgresql-common/createcluster.conf \
    && apt-get install -y --no-install-recommends postgresql-15 \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
    && chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql \
    && chmod 700 /var/lib/postgresql/data
COPY docker-entrypoint.sh /usr/local/bin/
ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PGDATA=/var/lib/postgresql/data LANG=C.UTF-8
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["docker-entrypoint.sh"]
CMD ["postgres"]
DOCKERFILE
    chmod 755 "$WORK/postgres/docker-entrypoint.sh"
    say "installing Debian's postgresql-15 into $POSTGRES"
    build_on_slim "$POSTGRES" postgres
fi

if ! wanted "$NGINX"; then
    :
elif have "$NGINX"; then
    say "$NGINX is present"
else
    mkdir -p "$WORK/nginx"
    # The official image's log links (the access and error logs go to docker logs) and its
    # stop signal (SIGQUIT is nginx's graceful shutdown).
    cat >"$WORK/nginx/Dockerfile" <<'DOCKERFILE'
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* \
    && ln -sf /dev/stdout /var/log/nginx/access.log \
    && ln -sf /dev/stderr /var/log/nginx/error.log
EXPOSE 80
STOPSIGNAL SIGQUIT
CMD ["nginx", "-g", "daemon off;"]
DOCKERFILE
    say "installing Debian's nginx into $NGINX"
    build_on_slim "$NGINX" nginx
fi
