# Conveyor server image. Build: docker build -t conveyor .  (or: docker compose up --build)

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# package-lock.json may lack other platforms' optional binaries (@swc/core-*, @unrs/resolver-binding-*)
# when it was written against a registry mirror without them; npm ci rejects such a lock, npm install
# installs the same locked versions and fills the gap.
RUN npm ci || npm install --no-audit --no-fund
COPY . .
RUN npm run build \
 && npm prune --omit=dev

FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
USER node
EXPOSE 3000
# nest build keeps the source layout under dist/ (outDir ../../dist, files from apps/ and libs/).
CMD ["node", "dist/apps/server/src/main.js"]
