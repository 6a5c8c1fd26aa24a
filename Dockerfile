# One image definition for every Vigil process. Build a single app with its target, e.g.
#   docker build --target api --build-arg GIT_COMMIT=$(git rev-parse --short=12 HEAD) -t vigil-api .
# Stages: deps (all deps) -> build (dist/) ; prod-deps (runtime deps only) ; runtime (base of every app target).

FROM node:20-bookworm-slim AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# ---- deps: every dependency, exactly as locked ------------------------------------------------
# --ignore-scripts: the project's own `prepare` (Lua stitching) needs sources not copied yet; the
# build stage runs it through `npm run build`.
FROM base AS deps
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts

# ---- build: Lua stitched into its generated module, then tsc + tsc-alias into dist/ ---------------
FROM deps AS build
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY scripts ./scripts
COPY libs ./libs
COPY apps ./apps
RUN npm run build \
    && test -f dist/apps/api/src/main.js \
    && test -f dist/apps/meta-sandbox/src/main.js \
    && test -f dist/libs/tasks/src/lua/scripts.generated.js

# ---- prod-deps: runtime dependencies only ------------------------------------------------------
FROM base AS prod-deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

# ---- runtime: what every app target shares --------------------------------------------------------
# Code stays root-owned and read-only to the process; it runs as the unprivileged `node` user.
# No init shim: `node` is PID 1 and the apps handle SIGTERM themselves (Nest shutdown hooks close
# queues, Redis and HTTP; the sandbox closes its server), so the container stops cleanly.
FROM base AS runtime
ENV NODE_ENV=production
COPY package.json ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Last, so a new commit only changes this layer; /version reports it.
ARG GIT_COMMIT=unknown
ENV GIT_COMMIT=${GIT_COMMIT}
USER node
STOPSIGNAL SIGTERM

# ---- app targets ------------------------------------------------------------------------------------
FROM runtime AS api
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/apps/api/src/main.js"]

FROM runtime AS worker
EXPOSE 3001
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.WORKER_PORT||3001)+'/health',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/apps/worker/src/main.js"]

FROM runtime AS watcher
EXPOSE 3002
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.WATCHER_PORT||3002)+'/health',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/apps/watcher/src/main.js"]

FROM runtime AS notifier
EXPOSE 3003
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.NOTIFIER_PORT||3003)+'/health',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/apps/notifier/src/main.js"]

# Fake Meta Graph API for demos; it has no /health, so its stats route is the liveness probe.
# It must listen on all interfaces inside a container (its own default is 127.0.0.1).
FROM runtime AS meta-sandbox
ENV META_SANDBOX_HOST=0.0.0.0 \
    META_SANDBOX_PORT=4010
EXPOSE 4010
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.META_SANDBOX_PORT||4010)+'/__sandbox/stats',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/apps/meta-sandbox/src/main.js"]
