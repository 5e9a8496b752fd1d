/** Why topology input was rejected; `parameter` names the offending input so the agent can say which /sys file was bad. */
export type TopologyErrorCode =
  | "invalid-cpulist"
  | "invalid-cpu-id"
  | "duplicate-cpu"
  | "cpu-without-node"
  | "core-spans-nodes"
  | "empty-topology"
  | "invalid-spec";

export class TopologyError extends Error {
  override readonly name = "TopologyError";
  constructor(
    readonly code: TopologyErrorCode,
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}
