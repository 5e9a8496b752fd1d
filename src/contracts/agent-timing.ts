// Timings both sides of the agent protocol start from. The control plane's setting (HEARTBEAT_INTERVAL_MS) goes to
// each agent in its registration response; until that arrives the agent heartbeats at the same default.
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 5_000;
/** Agents send aggregated metrics this often unless the control plane (METRICS_INTERVAL_MS) says otherwise. */
export const DEFAULT_METRICS_INTERVAL_MS = 15_000;
