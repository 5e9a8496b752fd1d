import { describe, expect, it } from "vitest";
import { agentUrlSchema, registerRequestSchema } from "./agent-protocol";

const registration = (inferenceUrl: string) => ({
  protocolVersion: 1, agentVersion: "0.1.0", hostName: "node-1", bootId: crypto.randomUUID(),
  topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0] }] }] }] },
  allowedCpus: [0], cpuModel: "test", memoryBytes: 1e9, ortVersion: "1.30.0", inferenceUrl,
});

describe("agent inference URL", () => {
  it("accepts the addresses agents report: host names, IPv4, IPv6, ports, a path prefix", () => {
    for (const url of ["http://node-1:8000", "https://agent.example.com", "http://10.0.0.7:8000", "http://[fd00::7]:8000", "https://gw.example/agents/node_1"]) {
      expect(agentUrlSchema.safeParse(url).success, url).toBe(true);
    }
  });
  it("refuses other schemes, credentials and anything a shell would read as more than text", () => {
    const refused = [
      "ftp://node-1/", "file:///etc/passwd", "javascript:alert(1)", "http://user:pw@node-1:8000", "http://user@node-1",
      "http://node-1:8000/$(id)", "http://node-1:8000/`id`", "http://node-1:8000;id", "http://node-1:8000/'x", "http://node-1 8000",
      "http://node-1:8000/&id", "http://node-1:8000/|id", "http://node-1:8000/\nid", "http://node-1:8000/>x", "http://node-1/?a=b*",
      "http://node-1:8000/\"x", "http://node-1:8000/\\x", "not a url", "",
    ];
    expect(refused.filter((url) => agentUrlSchema.safeParse(url).success)).toEqual([]);
  });
  it("a registration with a hostile URL fails on the inferenceUrl field, with a message saying why", () => {
    const parsed = registerRequestSchema.safeParse(registration("http://node-1:8000/$(touch /tmp/x)"));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(["inferenceUrl"]);
    expect(parsed.error!.issues[0]!.message).toMatch(/http or https URL .*without credentials or shell characters/);
    expect(registerRequestSchema.safeParse(registration("http://node-1:8000")).success).toBe(true);
  });
});
