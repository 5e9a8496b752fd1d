# syntax=docker/dockerfile:1.7
# The control plane (and, with another command, the agent): multi-stage. The final image holds production
# dependencies only, owned by root and not writable by the user it runs as (10001), so the server cannot rewrite its
# own code or dependencies; it writes only to /data, /tmp and /app/.next/cache, which Kubernetes mounts as volumes
# over a read-only root filesystem (deploy/kubernetes). .dockerignore keeps .env, local data and build output out of
# the build context altogether.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip CHECKPOINT_DISABLE=1 NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
COPY apps ./apps
# The workspace packages inside src/ (their manifests only: npm ci links them; the sources come with the rest).
COPY src/core/package.json ./src/core/
COPY src/contracts/package.json ./src/contracts/
COPY src/modelzoo/package.json ./src/modelzoo/
COPY scripts/prisma-generate.mjs ./scripts/
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npm run build

# Production dependencies only. No install scripts: the one that matters (the Prisma client) was generated in the
# build stage into src/generated, which the runtime stage copies; ONNX Runtime ships its binaries in the package.
FROM node:20-bookworm-slim AS prod-deps
WORKDIR /app
ENV ONNXRUNTIME_NODE_INSTALL=skip
COPY package.json package-lock.json ./
COPY apps ./apps
COPY src/core/package.json ./src/core/
COPY src/contracts/package.json ./src/contracts/
COPY src/modelzoo/package.json ./src/modelzoo/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOST=0.0.0.0 PACKRAT_DATA_DIR=/data PACKRAT_LOCAL_AGENT=false
# A fixed, numeric uid/gid (10001): Kubernetes checks runAsNonRoot against it (deploy/kubernetes runs as 10001).
RUN groupadd --system --gid 10001 packrat && useradd --system --uid 10001 --gid packrat --home /data --no-create-home packrat
# Everything below is root's (COPY without --chown); the server only reads it.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/package-lock.json /app/tsconfig.json /app/next.config.ts ./
COPY --from=build /app/.next ./.next
COPY --from=build /app/public ./public
# src/ and apps/ at run time: the sandbox children's scripts, the supervisor's imports (under tsx), the generated
# Prisma client, and the sources whose hash says the build in .next is current (scripts/lib/build.ts).
COPY --from=build /app/src ./src
COPY --from=build /app/apps ./apps
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/prisma ./prisma
# The writable places, and nothing else: /data (uploads staging, artifacts' local copies), Next's cache, and Next's
# trace file (written at shutdown) sent to /tmp.
RUN mkdir -p /data /app/.next/cache && chown packrat:packrat /data /app/.next/cache && rm -f /app/.next/trace && ln -s /tmp/next-trace /app/.next/trace
USER 10001:10001
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s CMD node -e "fetch('http://127.0.0.1:3000/api/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The supervisor applies migrations, then runs the web process, scripts/serve.ts (the agent API front and Next's
# handler over .next; DATABASE_URL is required in the container).
CMD ["node", "--import", "tsx", "scripts/start.ts"]
