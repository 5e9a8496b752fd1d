import { describe, expect, it } from "vitest";
import { AgentEnvError, loadAgentEnv } from "./env";

describe("loadAgentEnv: AGENT_HOST_NAME", () => {
  it("is the name the agent registers as when set (a DaemonSet passes the node's name); unset or empty: the OS's", () => {
    expect(loadAgentEnv({ AGENT_HOST_NAME: "gke-pool-a-7f3c" }).AGENT_HOST_NAME).toBe("gke-pool-a-7f3c");
    expect(loadAgentEnv({}).AGENT_HOST_NAME).toBeUndefined();
    expect(loadAgentEnv({ AGENT_HOST_NAME: "" }).AGENT_HOST_NAME).toBeUndefined();
  });

  it("longer than a host name may be (255) is refused, naming the variable", () => {
    expect(() => loadAgentEnv({ AGENT_HOST_NAME: "x".repeat(256) })).toThrow(AgentEnvError);
    expect(() => loadAgentEnv({ AGENT_HOST_NAME: "x".repeat(256) })).toThrow(/AGENT_HOST_NAME/);
  });
});
