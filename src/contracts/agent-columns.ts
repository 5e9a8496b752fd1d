// The JSON columns of agents and their heartbeats.
import { z } from "zod";
import { heartbeatRequestSchema } from "./agent-protocol";
import { jsonColumn, storedDate } from "./json-column";

// agent.topology is declared with its schema, in host-topology.ts.

/** agent.lastHost: the host's load as the newest heartbeat reported it. */
export const agentLastHostSchema = z
  .looseObject({
    cpuBusyFraction: z.number().min(0).max(1),
    memoryUsedBytes: z.number().int().min(0),
    servingProcessRestarts: z.number().int().min(0),
    at: storedDate,
  })
  .partial();
export const agentLastHostColumn = jsonColumn("agent.lastHost", agentLastHostSchema.nullable());

/**
 * agent_heartbeat.body: a report as it was accepted, kept when its serving-process restart counter moved, with the
 * value it moved from (null: none known before it). The control plane adds that value in SQL from agent.lastHost.
 */
export const heartbeatBodyColumn = jsonColumn(
  "agent_heartbeat.body",
  heartbeatRequestSchema.extend({ previousServingProcessRestarts: z.number().int().min(0).nullable().optional() }),
);
