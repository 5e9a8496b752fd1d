# syntax=docker/dockerfile:1.7
# The control plane: multi-stage, production dependencies only in the final image, runs as a non-root user.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip CHECKPOINT_DISABLE=1 NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
COPY apps ./apps
COPY scripts/prisma-generate.mjs ./scripts/
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npm run build

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOST=0.0.0.0 PACKRAT_DATA_DIR=/data PACKRAT_LOCAL_AGENT=false
# A fixed, numeric uid/gid (10001): Kubernetes checks runAsNonRoot against it (deploy/kubernetes runs as 10001).
RUN groupadd --system --gid 10001 packrat && useradd --system --uid 10001 --gid packrat --home /app packrat && mkdir -p /data && chown packrat:packrat /data
COPY --from=build --chown=packrat:packrat /app /app
USER 10001:10001
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s CMD node -e "fetch('http://127.0.0.1:3000/api/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The supervisor applies migrations, then runs `next start` (DATABASE_URL is required in the container).
CMD ["node", "--import", "tsx", "scripts/start.ts"]
