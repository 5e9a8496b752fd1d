// The control plane under test for `npm run bench -- heartbeats`: the real agent API route handlers over real HTTP
// (test/route-server.ts, no Next build), in a process of its own so its CPU is measured apart from the simulated
// agents. Talks to the benchmark over IPC: "ready" with its URL, then "stats" on request.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { agentApiRoutes, startRouteServer } from "../test/control-plane-harness";

const server = await startRouteServer(await agentApiRoutes(), 0);
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

process.on("message", (message: { type: string }) => {
  if (message.type === "stats") {
    const cpu = process.cpuUsage();
    process.send!({
      type: "stats",
      cpuUs: cpu.user + cpu.system,
      rssBytes: process.memoryUsage().rss,
      loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      loopDelayMaxMs: loopDelay.max / 1e6,
    });
    loopDelay.reset();
  } else if (message.type === "stop") {
    void server.close().then(() => process.exit(0));
  }
});
process.on("disconnect", () => process.exit(0));
process.send!({ type: "ready", url: server.url });
