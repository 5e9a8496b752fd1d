import { describe, expect, it } from "vitest";
import { AgentMetrics } from "./metrics";

describe("metric label objects", () => {
  it("are built once per series and reused, one per model, version, protocol and status", async () => {
    const metrics = new AgentMetrics();
    const a = metrics.requestLabels("cnn", "1", "http", 200);
    expect(metrics.requestLabels("cnn", "1", "http", 200)).toBe(a);
    expect(a).toEqual({ model: "cnn", version: "1", protocol: "http", status: "200" });
    expect(metrics.requestLabels("cnn", "1", "grpc", 200)).not.toBe(a);
    expect(metrics.requestLabels("cnn", "1", "http", 503)).toEqual({
      model: "cnn",
      version: "1",
      protocol: "http",
      status: "503",
    });
    expect(metrics.requestLabels("cnn", "2", "http", 200).version).toBe("2");
    expect(metrics.protocolLabels("cnn", "1", "grpc")).toBe(metrics.protocolLabels("cnn", "1", "grpc"));
    expect(metrics.protocolLabels("cnn", "1", "grpc")).toEqual({ model: "cnn", version: "1", protocol: "grpc" });
    expect(metrics.modelLabels("cnn", "1")).toBe(metrics.modelLabels("cnn", "1"));
    expect(metrics.modelLabels("resnet", "1")).toEqual({ model: "resnet", version: "1" });

    // Reused objects count as their series do.
    metrics.requests.inc(metrics.requestLabels("cnn", "1", "http", 200));
    metrics.requests.inc(metrics.requestLabels("cnn", "1", "http", 200));
    metrics.requests.inc(metrics.requestLabels("cnn", "1", "grpc", 200));
    const text = await metrics.registry.metrics();
    expect(text).toContain('packrat_requests_total{model="cnn",version="1",protocol="http",status="200"} 2');
    expect(text).toContain('packrat_requests_total{model="cnn",version="1",protocol="grpc",status="200"} 1');
  });
});
