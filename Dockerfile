# db-adapter container image.
#
#   docker build -t db-adapter .
#   docker run -p 6041:6041 -v db-adapter-data:/var/lib/db-adapter db-adapter
#
# BASE_IMAGE: a Debian-based image with Node.js 24 (LTS) and npm, for the build stages;
# RUNTIME_IMAGE: the Debian the image runs on, without npm: only the node binary is copied in
# (from BASE_IMAGE's /usr/local/bin/node), so npm, yarn, corepack and headers stay out.
# Where no registry is reachable, test/deploy/container.sh builds local ones and passes them here.
ARG BASE_IMAGE=node:24-bookworm-slim
ARG RUNTIME_IMAGE=debian:bookworm-slim

# ---- build: dev dependencies, TypeScript -> dist/src (tsconfig.build.json: src without tests) ----
FROM ${BASE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN node_modules/.bin/tsc -p tsconfig.build.json

# ---- production dependencies only (no tsx, no js-yaml), without what nothing loads at run time ----
FROM ${BASE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force \
 && rm -rf node_modules/@types node_modules/.package-lock.json \
 && find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \
      -o -name '*.md' -o -name '*.markdown' -o -name '*.ts.map' \) -delete

# ---- runtime: Debian + node + the compiled adapter ----
FROM ${RUNTIME_IMAGE}
# tini as PID 1 forwards signals and reaps; installed only when the base image lacks it
RUN if ! command -v tini >/dev/null 2>&1; then \
      apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*; \
    fi \
 && mkdir -p /var/lib/db-adapter /etc/db \
 && chown 10001:10001 /var/lib/db-adapter
COPY --from=build /usr/local/bin/node /usr/local/bin/node
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist/src ./dist/src
COPY package.json ./
# Everything the process writes goes to the data volume or /tmp, so the root filesystem can be
# read-only. Logs go to stdout only (no rotating files to fill the data volume; set
# DB_ADAPTER_LOG_ENABLE_FILE=true and DB_ADAPTER_LOG_PATH for files).
ENV NODE_ENV=production \
    PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin \
    DB_ADAPTER_HOST=0.0.0.0 \
    DB_ADAPTER_STORAGE_URL=duckdb:/var/lib/db-adapter/db-adapter.duckdb \
    DB_ADAPTER_LOG_ENABLE_FILE=false \
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
