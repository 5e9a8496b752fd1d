// Timings both sides of the agent protocol start from. The control plane's setting (HEARTBEAT_INTERVAL_MS) goes to
// each agent in its registration response; until that arrives the agent heartbeats at the same default.
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 5_000;
