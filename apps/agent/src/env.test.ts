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

describe("loadAgentEnv: tokens", () => {
  it("refuses the example overlay's placeholder and weak tokens, naming the variable, never the value", () => {
    for (const [name, value] of [["AGENT_TOKEN", "prat_enroll_REPLACE-ME"], ["AGENT_INFER_TOKEN", "changeme-changeme"], ["AGENT_METRICS_TOKEN", "aaaaaaaaaaaaaaaaaaaa"]] as const) {
      let message = "";
      try { loadAgentEnv({ [name]: value }); } catch (e) { message = (e as Error).message; }
      expect(message, name).toMatch(new RegExp(`^invalid environment variable ${name}: `));
      expect(message).not.toContain(value);
    }
    expect(loadAgentEnv({ AGENT_INFER_TOKEN: "infer-q8Vw2zLp7Rk3xTtN4b0J1u9y" }).AGENT_INFER_TOKEN).toBe("infer-q8Vw2zLp7Rk3xTtN4b0J1u9y");
  });
});
