import { describe, expect, it } from "vitest";
import { agentUrlSchema, HEARTBEAT_LIMITS, heartbeatRequestSchema, registerRequestSchema } from "./agent-protocol";

const registration = (inferenceUrl: string) => ({
  protocolVersion: 1,
  agentVersion: "0.1.0",
  hostName: "node-1",
  bootId: crypto.randomUUID(),
  topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0] }] }] }] },
  allowedCpus: [0],
  cpuModel: "test",
  memoryBytes: 1e9,
  ortVersion: "1.30.0",
  inferenceUrl,
});

describe("agent inference URL", () => {
  it("accepts the addresses agents report: host names, IPv4, IPv6, ports, a path prefix", () => {
    for (const url of [
      "http://node-1:8000",
      "https://agent.example.com",
      "http://10.0.0.7:8000",
      "http://[fd00::7]:8000",
      "https://gw.example/agents/node_1",
    ]) {
      expect(agentUrlSchema.safeParse(url).success, url).toBe(true);
    }
  });
  it("refuses other schemes, credentials and anything a shell would read as more than text", () => {
    const refused = [
      "ftp://node-1/",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "http://user:pw@node-1:8000",
      "http://user@node-1",
      "http://node-1:8000/$(id)",
      "http://node-1:8000/`id`",
      "http://node-1:8000;id",
      "http://node-1:8000/'x",
      "http://node-1 8000",
      "http://node-1:8000/&id",
      "http://node-1:8000/|id",
      "http://node-1:8000/\nid",
      "http://node-1:8000/>x",
      "http://node-1/?a=b*",
      'http://node-1:8000/"x',
      "http://node-1:8000/\\x",
      "not a url",
      "",
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

const report = (over: Record<string, unknown> = {}) => ({
  deploymentId: "dep-1",
  observedGeneration: 1,
  state: "serving",
  intervalMs: 5000,
  requests: { completed: 1, rejected: 0, withinSlo: 1 },
  rows: { completed: 1, rejected: 0 },
  histograms: {},
  queueDepthRows: 0,
  instances: [{ id: 0, threads: 1, batch: 1, state: "serving", cpus: [0], affinityOk: true }],
  affinityOk: true,
  lastReconfiguration: {
    generation: 1,
    kind: "scale",
    outcome: "applied",
    started: 1,
    stopped: 0,
    kept: 0,
    overlapCpus: [],
    phasesMs: { start: 1, warm: 1, switch: 1, drain: 1, stop: 1, total: 5 },
    servedBatches: 3,
  },
  ...over,
});
const heartbeat = (deployments: unknown[]) => ({
  bootId: crypto.randomUUID(),
  revision: 1,
  host: { cpuBusyFraction: 0.5, memoryUsedBytes: 1e9 },
  servingProcessRestarts: 0,
  deployments,
});
const refusedAt = (body: unknown) => {
  const parsed = heartbeatRequestSchema.safeParse(body);
  return parsed.success ? null : parsed.error.issues[0]!.path.join(".");
};

describe("heartbeat bounds (the report is stored)", () => {
  it("accepts a heartbeat as an agent sends it", () => {
    expect(refusedAt(heartbeat([report()]))).toBeNull();
  });
  it("refuses the typed estimator and reconfiguration parts past their bounds, naming the field", () => {
    const reconfiguration = (report() as { lastReconfiguration: Record<string, unknown> }).lastReconfiguration;
    expect(
      refusedAt(heartbeat([report({ lastReconfiguration: { ...reconfiguration, error: "e".repeat(2001) } })])),
    ).toBe("deployments.0.lastReconfiguration.error");
    expect(refusedAt(heartbeat([report({ lastReconfiguration: { ...reconfiguration, blob: "x" } })]))).toBeNull(); // unknown keys are stripped, not stored
    expect(
      heartbeatRequestSchema.parse(
        heartbeat([report({ lastReconfiguration: { ...reconfiguration, blob: "x".repeat(100_000) } })]),
      ).deployments![0]!.lastReconfiguration,
    ).not.toHaveProperty("blob");
  });
  it("refuses too many deployments, instances or CPUs, and over-long identifiers", () => {
    expect(
      refusedAt(
        heartbeat(
          Array.from({ length: HEARTBEAT_LIMITS.deployments + 1 }, (_, i) => report({ deploymentId: `d${i}` })),
        ),
      ),
    ).toBe("deployments");
    const instance = { id: 0, threads: 1, batch: 1, state: "serving", cpus: [0], affinityOk: true };
    expect(
      refusedAt(
        heartbeat([
          report({ instances: Array.from({ length: HEARTBEAT_LIMITS.instancesPerDeployment + 1 }, () => instance) }),
        ]),
      ),
    ).toBe("deployments.0.instances");
    const wide = { ...instance, cpus: Array.from({ length: 2048 }, (_, i) => i) };
    expect(refusedAt(heartbeat([report({ instances: [wide, wide, wide] })]))).toBe("deployments.0.instances");
    expect(refusedAt(heartbeat([report({ deploymentId: "d".repeat(HEARTBEAT_LIMITS.idLength + 1) })]))).toBe(
      "deployments.0.deploymentId",
    );
    expect(refusedAt(heartbeat([report({ instances: [{ ...instance, state: "s".repeat(1000) }] })]))).toBe(
      "deployments.0.instances.0.state",
    );
  });
});
