import { CoreInputError } from "../errors/core-input-error";

/** Why topology input was rejected; `parameter` names the offending input so the agent can say which /sys file was bad. */
export type TopologyErrorCode =
  | "invalid-cpulist"
  | "invalid-cpu-id"
  | "duplicate-cpu"
  | "cpu-without-node"
  | "core-spans-nodes"
  | "empty-topology"
  | "invalid-spec";

export class TopologyError extends CoreInputError<TopologyErrorCode> {
  override readonly name = "TopologyError";
  declare readonly parameter: string;
  constructor(code: TopologyErrorCode, parameter: string, message: string) {
    super(code, parameter, `${parameter}: ${message}`);
  }
}
