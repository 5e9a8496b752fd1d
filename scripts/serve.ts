// The production web process (run by scripts/start.ts, under tsx, with NODE_ENV=production): one HTTP server on
// HOST:PORT. The agent API (/api/agent/v1/*) is served by the agent front (src/server/agent-api/agent-front.ts),
// straight to its route handlers; everything else (dashboard, tRPC, health, uploads) by Next's request handler over
// the production build in .next, as `next start` would. Next's instrumentation (job runner, alert evaluator) runs
// in this process as under `next start`.
import { createServer } from "node:http";
import { resolve } from "node:path";
import next from "next";
import { AGENT_ROUTE_MODULES } from "../src/app/api/agent/v1/route-table";
import { createAgentFront } from "../src/server/agent-api/agent-front";
import { env } from "../src/server/env";
import { installPeerAddressHeader } from "../src/server/http/client-address";

const root = resolve(import.meta.dirname, "..");
const { PORT, HOST, NODE_ENV } = env();
if (NODE_ENV !== "production") {
  console.error("[packrat] scripts/serve.ts serves the production build: run it with NODE_ENV=production");
  process.exit(1);
}

// Before any server exists: every request learns its TCP peer's address from a header only this process sets.
installPeerAddressHeader();
const app = next({ dev: false, dir: root, hostname: HOST, port: PORT });
const handle = app.getRequestHandler();
await app.prepare();
const front = createAgentFront(AGENT_ROUTE_MODULES);
const server = createServer((req, res) => {
  if (!front.handle(req, res)) void handle(req, res);
});
server.on("upgrade", app.getUpgradeHandler());
await new Promise<void>((done, fail) => {
  server.once("error", fail);
  server.listen(PORT, HOST, () => done());
});
console.log(`[packrat] web: listening on http://${HOST}:${PORT} (agent API front, Next production build)`);

// As `next start`: stop accepting, let the requests in flight finish, close Next, exit with the signal's code.
let stopping = false;
function stop(signal: "SIGINT" | "SIGTERM"): void {
  if (stopping) return;
  stopping = true;
  server.close(() => {
    void app
      .close()
      .catch((error: unknown) => console.error(error))
      .finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  });
  server.closeIdleConnections();
}
process.on("SIGINT", () => stop("SIGINT"));
process.on("SIGTERM", () => stop("SIGTERM"));
