// Every route module of the agent API by its path under /api/agent/v1, for the agent front
// (src/server/agent-api/agent-front.ts), which serves them in the production web process without Next's router.
// A test checks this list against the route files here.
import type { AgentRouteModules } from "@/server/agent-api/agent-front";
import * as artifacts from "./artifacts/[sha256]/route";
import * as desired from "./desired/route";
import * as events from "./events/route";
import * as heartbeat from "./heartbeat/route";
import * as cells from "./jobs/[id]/cells/route";
import * as finish from "./jobs/[id]/finish/route";
import * as result from "./jobs/[id]/result/route";
import * as rounds from "./jobs/[id]/rounds/route";
import * as trial from "./jobs/[id]/trial/route";
import * as nextJob from "./jobs/next/route";
import * as metrics from "./metrics/route";
import * as register from "./register/route";
import * as whoami from "./whoami/route";

export const AGENT_ROUTE_MODULES: AgentRouteModules = [
  ["artifacts/[sha256]", artifacts],
  ["desired", desired],
  ["events", events],
  ["heartbeat", heartbeat],
  ["jobs/[id]/cells", cells],
  ["jobs/[id]/finish", finish],
  ["jobs/[id]/result", result],
  ["jobs/[id]/rounds", rounds],
  ["jobs/[id]/trial", trial],
  ["jobs/next", nextJob],
  ["metrics", metrics],
  ["register", register],
  ["whoami", whoami],
];
