// A control plane as a process of its own, for the fault-tolerance suite: the real route handlers (agent API,
// dashboard tRPC, health) over real HTTP without a Next build, so a test can SIGKILL it, or run two replicas. The
// agent API goes through the agent front, as in the production web process (scripts/serve.ts).
// Configured by the environment (DATABASE_URL, PACKRAT_DATA_DIR, shortened timings); CONTROL_PLANE_PORT: where.
import { AGENT_ROUTE_MODULES } from "@/app/api/agent/v1/route-table";
import { createAgentFront } from "@/server/agent-api/agent-front";
import { startRouteServer, type Route } from "../route-server";
import { testEnv } from "../test-env";

const health = await import("@/app/api/health/route");
const trpc = await import("@/app/api/trpc/[trpc]/route");
const upload = await import("@/app/api/models/upload/route");
const routes: Route[] = [
  { method: "GET", pattern: /^\/api\/health$/, handler: health.GET },
  { method: "GET", pattern: /^\/api\/trpc\/.+$/, handler: trpc.GET },
  { method: "POST", pattern: /^\/api\/trpc\/.+$/, handler: trpc.POST },
  { method: "POST", pattern: /^\/api\/models\/upload$/, handler: upload.POST },
];
const front = createAgentFront(AGENT_ROUTE_MODULES);
const server = await startRouteServer(routes, Number(testEnv.CONTROL_PLANE_PORT ?? 0), front.handle);
console.log(`control plane listening on ${server.url}`);
