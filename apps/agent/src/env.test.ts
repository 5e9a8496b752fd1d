import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentEnvError, loadAgentEnv, readTokenFile } from "./env";

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
    for (const [name, value] of [
      ["AGENT_TOKEN", "prat_enroll_REPLACE-ME"],
      ["AGENT_INFER_TOKEN", "changeme-changeme"],
      ["AGENT_METRICS_TOKEN", "aaaaaaaaaaaaaaaaaaaa"],
    ] as const) {
      let message = "";
      try {
        loadAgentEnv({ [name]: value });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, name).toMatch(new RegExp(`^invalid environment variable ${name}: `));
      expect(message).not.toContain(value);
    }
    expect(loadAgentEnv({ AGENT_INFER_TOKEN: "infer-q8Vw2zLp7Rk3xTtN4b0J1u9y" }).AGENT_INFER_TOKEN).toBe(
      "infer-q8Vw2zLp7Rk3xTtN4b0J1u9y",
    );
  });
});

describe("AGENT_TOKEN_FILE", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-token-file-"));
  it("reads and checks the token in the file (trailing newline dropped); a missing file is undefined", () => {
    const file = join(dir, "token");
    writeFileSync(file, "prat_enroll_q8Vw2zLp7Rk3xTtN4b0J1u9y\n");
    expect(loadAgentEnv({ AGENT_TOKEN_FILE: file }).AGENT_TOKEN_FILE).toBe(file);
    expect(readTokenFile(file)).toBe("prat_enroll_q8Vw2zLp7Rk3xTtN4b0J1u9y");
    expect(readTokenFile(join(dir, "gone"))).toBeUndefined();
  });

  it("refuses a placeholder in the file without quoting it, and both AGENT_TOKEN and AGENT_TOKEN_FILE at once", () => {
    const file = join(dir, "placeholder");
    writeFileSync(file, "prat_enroll_REPLACE-ME\n");
    let message = "";
    try {
      readTokenFile(file);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^AGENT_TOKEN_FILE /);
    expect(message).not.toContain("prat_enroll_");
    expect(() => loadAgentEnv({ AGENT_TOKEN: "prat_q8Vw2zLp7Rk3xTtN4b0J1u9y", AGENT_TOKEN_FILE: file })).toThrow(
      /not both/,
    );
    expect(loadAgentEnv({ AGENT_TOKEN_FILE_REMOVE_AFTER_ENROLL: "true" }).AGENT_TOKEN_FILE_REMOVE_AFTER_ENROLL).toBe(
      true,
    );
    expect(loadAgentEnv({}).AGENT_TOKEN_FILE_REMOVE_AFTER_ENROLL).toBe(false);
  });
});
