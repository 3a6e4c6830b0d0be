#!/usr/bin/env bash
# Prepares a Docker daemon and a PostgreSQL image for the integration tests, without a registry.
#
#   source test/integration/docker-env.sh     # exports DB_ADAPTER_TEST_PG_IMAGE (what .ci/run does)
#   bash test/integration/docker-env.sh       # same, prints the export line to paste
#
# Steps (each skipped when already done, so re-running is cheap):
#   1. install Debian's docker.io when `dockerd` is absent (apt-get);
#   2. start dockerd without a bridge/iptables (the sandbox has neither), log to $DOCKERD_LOG,
#      wait for /var/run/docker.sock;
#   3. build a local PostgreSQL 15 image from a debootstrap minbase root filesystem with
#      `docker import`, cached by tag ($DB_ADAPTER_TEST_PG_IMAGE_TAG, default db-adapter/postgres:15-local).
# Containers from this image must run with host networking (there is no bridge); the entrypoint
# honours POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB / PGPORT like the official image.
#
# Users with a registry can skip all of this: the tests default to postgres:16-alpine.

# When sourced, run the work in a child bash (so `set -e` and friends never leak into, or get
# disabled by, the caller's shell) and only export its result here.
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  if _dbadapter_line="$(bash "${BASH_SOURCE[0]}")"; then
    eval "$_dbadapter_line"
    echo "$_dbadapter_line"
    unset _dbadapter_line
    return 0
  fi
  unset _dbadapter_line
  echo "[docker-env] failed" >&2
  return 1
fi

set -euo pipefail

_dbadapter_docker_env() {
  local tag="${DB_ADAPTER_TEST_PG_IMAGE_TAG:-db-adapter/postgres:15-local}"
  local log="${DOCKERD_LOG:-/var/log/db-adapter-dockerd.log}"
  local sudo=""
  if [ "$(id -u)" != "0" ]; then
    sudo="sudo"
  fi

  say() { printf '[docker-env] %s\n' "$*" >&2; }

  # --- 1. docker daemon binary -------------------------------------------------------------
  if ! command -v dockerd >/dev/null 2>&1; then
    say "dockerd not found: installing Debian's docker.io"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends docker.io >&2
  fi

  # --- 2. daemon running -------------------------------------------------------------------
  if ! docker info >/dev/null 2>&1; then
    say "starting dockerd (log: $log)"
    # --bridge=none/--iptables=false: no bridge netfilter here; containers use --network host.
    $sudo sh -c "nohup dockerd --bridge=none --iptables=false >>'$log' 2>&1 &"
    local i
    for i in $(seq 1 60); do
      if [ -S /var/run/docker.sock ] && docker info >/dev/null 2>&1; then
        break
      fi
      sleep 1
    done
    if ! docker info >/dev/null 2>&1; then
      say "dockerd did not come up within 60 s; last log lines:"
      tail -n 30 "$log" >&2 || true
      return 1
    fi
  fi

  # --- 3. PostgreSQL image, cached by tag --------------------------------------------------
  # bump when the image recipe changes, so a cached image from an older recipe is rebuilt
  local recipe=2 have
  have="$(docker image inspect -f '{{ index .Config.Labels "db-adapter.recipe" }}' "$tag" 2>/dev/null || true)"
  if [ "$have" = "$recipe" ]; then
    say "image $tag present (cached, recipe $recipe)"
  else
    _dbadapter_build_pg_image "$tag" "$sudo" "$recipe"
  fi

  DB_ADAPTER_TEST_PG_IMAGE="$tag"
}

# shellcheck source=../lib/debian-mirror.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/debian-mirror.sh"

_dbadapter_build_pg_image() {
  local tag="$1" sudo="$2" recipe="$3"
  say() { printf '[docker-env] %s\n' "$*" >&2; }
  if ! command -v debootstrap >/dev/null 2>&1; then
    say "installing debootstrap"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends debootstrap >&2
  fi
  local mirror root
  mirror="$(dbadapter_debian_mirror)"
  root="$(mktemp -d /tmp/db-adapter-pg-rootfs.XXXXXX)"
  say "debootstrap bookworm + postgresql-15 from $mirror into $root"
  if ! $sudo debootstrap --variant=minbase --include=postgresql-15 bookworm "$root" "$mirror" >"$root.log" 2>&1; then
    say "debootstrap failed; last log lines:"
    tail -n 30 "$root.log" >&2 || true
    $sudo rm -rf "$root"
    return 1
  fi

  # The Debian package creates a default cluster at build time; the entrypoint makes its own.
  $sudo rm -rf "$root/var/lib/postgresql/15/main" "$root/etc/postgresql/15/main"
  $sudo rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*

  $sudo tee "$root/usr/local/bin/docker-entrypoint.sh" >/dev/null <<'ENTRY'
#!/bin/sh
# Minimal stand-in for the official image's entrypoint: one cluster in $PGDATA, a password for
# $POSTGRES_USER (scram over TCP; trust only on the local socket), database $POSTGRES_DB, port $PGPORT.
set -eu
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
: "${PGPORT:=5432}"
: "${PGDATA:=/var/lib/postgresql/data}"
BIN=/usr/lib/postgresql/15/bin
export PGPORT PGDATA

mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
chmod 700 "$PGDATA"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -n "${POSTGRES_PASSWORD:-}" ]; then
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    chown postgres "$pwfile"
    su postgres -s /bin/sh -c "$BIN/initdb -D '$PGDATA' -U '$POSTGRES_USER' --pwfile='$pwfile' --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8" >/dev/null
    rm -f "$pwfile"
  else
    su postgres -s /bin/sh -c "$BIN/initdb -D '$PGDATA' -U '$POSTGRES_USER' --auth=trust -E UTF8 --locale=C.UTF-8" >/dev/null
  fi
  # host networking: listen on loopback and whatever else the host has
  printf "listen_addresses = '*'\nunix_socket_directories = '/var/run/postgresql'\n" >>"$PGDATA/postgresql.conf"
  printf 'host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    sed -i 's/scram-sha-256$/trust/' "$PGDATA/pg_hba.conf"
  fi
  # create the database with a temporary server on the socket only
  su postgres -s /bin/sh -c "$BIN/pg_ctl -D '$PGDATA' -o \"-c listen_addresses='' -p $PGPORT\" -w start" >/dev/null
  if [ "$POSTGRES_DB" != "postgres" ]; then
    su postgres -s /bin/sh -c "$BIN/psql -h /var/run/postgresql -p $PGPORT -U '$POSTGRES_USER' -d postgres -v ON_ERROR_STOP=1 -c \"CREATE DATABASE \\\"$POSTGRES_DB\\\"\"" >/dev/null
  fi
  su postgres -s /bin/sh -c "$BIN/pg_ctl -D '$PGDATA' -m fast -w stop" >/dev/null
  echo "PostgreSQL init process complete; ready for start up."
fi

# `docker stop` sends SIGTERM, which is postgres' "smart" shutdown (waits for every client to
# disconnect, so the stop ends in SIGKILL). `docker import` cannot set STOPSIGNAL, so translate
# TERM into SIGINT (fast shutdown) like the official image's STOPSIGNAL does.
setpriv --reuid=postgres --regid=postgres --init-groups "$BIN/postgres" -D "$PGDATA" -p "$PGPORT" "$@" &
pid=$!
trap 'kill -INT "$pid" 2>/dev/null' TERM INT
status=0
while kill -0 "$pid" 2>/dev/null; do
  wait "$pid" || status=$?
done
exit "$status"
ENTRY
  $sudo chmod 755 "$root/usr/local/bin/docker-entrypoint.sh"

  say "importing root filesystem as $tag"
  # shellcheck disable=SC2064
  trap "$sudo rm -rf '$root' '$root.log'" EXIT
  $sudo tar -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV PGDATA=/var/lib/postgresql/data' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' \
    --change 'CMD []' \
    --change 'EXPOSE 5432' \
    --change "LABEL db-adapter.recipe=$recipe" \
    - "$tag" >/dev/null
  $sudo rm -rf "$root" "$root.log"
  say "built $tag"
}

_dbadapter_docker_env
# no bridge network: Testcontainers cannot find the host through the bridge gateway, and the
# reaper (Ryuk) image cannot be pulled without a registry
echo "export DB_ADAPTER_TEST_PG_IMAGE=$DB_ADAPTER_TEST_PG_IMAGE TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 TESTCONTAINERS_RYUK_DISABLED=true"
