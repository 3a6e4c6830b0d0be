# db-adapter container image.
#
#   docker build -t db-adapter .
#   docker run -p 6041:6041 -v db-adapter-data:/var/lib/db-adapter db-adapter
#
# BASE_IMAGE: any Debian-based image with Node.js 20+ and npm (default: the official slim image).
# Where no registry is reachable, test/deploy/container.sh builds a local one and passes it here.
ARG BASE_IMAGE=node:20-bookworm-slim

# ---- build: dev dependencies, TypeScript -> dist/ ----
FROM ${BASE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
COPY scripts ./scripts
COPY vitest.config.ts vitest.integration.config.ts ./
RUN npm run build

# ---- production dependencies only ----
FROM ${BASE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime ----
FROM ${BASE_IMAGE}
# tini as PID 1 forwards signals and reaps; installed only when the base image lacks it
RUN if ! command -v tini >/dev/null 2>&1; then \
      apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*; \
    fi \
 && mkdir -p /var/lib/db-adapter /etc/db \
 && chown 10001:10001 /var/lib/db-adapter
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist/src ./dist/src
COPY package.json ./
# Everything the process writes goes to the data volume or /tmp, so the root filesystem can be
# read-only. Logs go to stdout; the rotating log files go under the data directory.
ENV NODE_ENV=production \
    DB_ADAPTER_HOST=0.0.0.0 \
    DB_ADAPTER_STORAGE_URL=duckdb:/var/lib/db-adapter/db-adapter.duckdb \
    DB_ADAPTER_LOG_PATH=/var/lib/db-adapter/log \
    DB_ADAPTER_MONITOR_INCGROUP=true
VOLUME /var/lib/db-adapter
# What listens by default: HTTP, the management server (6060), StatsD (statsagent, UDP), collectd (collagent, UDP). Opened
# only when enabled, so not declared here (publish them with -p): the OpenTSDB telnet receivers,
# 6046-6049/tcp (DB_ADAPTER_TSDBPROTO_TELNET_ENABLE=true, DB_ADAPTER_TSDBPROTO_TELNET_PORTS), and
# StatsD on 6044/tcp instead of udp with DB_ADAPTER_STATSAGENT_PROTOCOL=tcp.
EXPOSE 6041/tcp 6044/udp 6045/udp 6060/tcp
USER 10001:10001
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.DB_ADAPTER_PORT||6041)+'/-/ping').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The V8 flags are src/node-flags.ts's (readiness latency under ingest; see README). /etc/db/adapter.toml is
# read when it exists (mount a ConfigMap there); DB_ADAPTER_* variables override it.
ENTRYPOINT ["tini", "--", "node", "--v8-pool-size=1", "--initial-old-space-size=64", "dist/src/main.js"]
