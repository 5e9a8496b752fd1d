import { describe, expect, it } from "vitest";
import { mergeKeyFor, mergeObjects } from "./strategic-merge";

describe("strategic merge (the subset the overlays use)", () => {
  it("maps merge recursively; a patch value replaces a scalar; null deletes", () => {
    const base = { spec: { replicas: 2, template: { spec: { hostNetwork: false, dnsPolicy: "ClusterFirst" } } } };
    const merged = mergeObjects(base, { spec: { replicas: 3, template: { spec: { dnsPolicy: null } } } });
    expect(merged).toEqual({ spec: { replicas: 3, template: { spec: { hostNetwork: false } } } });
    // The base is not changed.
    expect(base.spec.replicas).toBe(2);
  });

  it("containers merge by name: the patched one keeps the fields the patch does not name; patch order first, then the rest", () => {
    const base = {
      containers: [
        { name: "a", image: "x", resources: { requests: { cpu: "1" }, limits: { memory: "1Gi" } } },
        { name: "b", image: "y" },
      ],
    };
    const merged = mergeObjects(base, {
      containers: [
        { name: "a", resources: { requests: { cpu: "2" } } },
        { name: "c", image: "z" },
      ],
    });
    expect(merged.containers).toEqual([
      { name: "a", image: "x", resources: { requests: { cpu: "2" }, limits: { memory: "1Gi" } } },
      { name: "c", image: "z" },
      { name: "b", image: "y" },
    ]);
  });

  it("env merges by name, volumeMounts by mountPath, container ports by containerPort, Service ports by port", () => {
    expect(mergeKeyFor("env", [])).toBe("name");
    expect(mergeKeyFor("volumeMounts", [])).toBe("mountPath");
    expect(mergeKeyFor("ports", [{ containerPort: 80 }])).toBe("containerPort");
    expect(mergeKeyFor("ports", [{ port: 80, targetPort: "http" }])).toBe("port");
    // As `kubectl kustomize` 5.5 orders it: base A, B, E patched with E, Z → E, Z, A, B.
    const merged = mergeObjects(
      {
        env: [
          { name: "A", value: "1" },
          { name: "B", value: "2" },
          { name: "E", value: "5" },
        ],
      },
      {
        env: [
          { name: "E", value: "7" },
          { name: "Z", value: "0" },
        ],
      },
    );
    expect(merged.env).toEqual([
      { name: "E", value: "7" },
      { name: "Z", value: "0" },
      { name: "A", value: "1" },
      { name: "B", value: "2" },
    ]);
  });

  it("lists without a merge key (NetworkPolicy rules, tolerations) are replaced whole", () => {
    const base = { egress: [{ ports: [{ port: 5432 }] }, { ports: [{ port: 443 }] }] };
    expect(mergeObjects(base, { egress: [{ ports: [{ port: 5433 }] }] })).toEqual({
      egress: [{ ports: [{ port: 5433 }] }],
    });
    expect(mergeKeyFor("tolerations", [{ key: "a" }])).toBeUndefined();
  });

  it("refuses directives it does not implement, and a keyed list element without its key, naming the path", () => {
    expect(() => mergeObjects({ spec: {} }, { spec: { $patch: "replace" } })).toThrow(
      expect.objectContaining({ code: "unsupported", parameter: "spec.$patch" }),
    );
    expect(() => mergeObjects({ containers: [{ name: "a" }] }, { containers: [{ image: "x" }] })).toThrow(
      expect.objectContaining({ code: "invalid", parameter: "containers" }),
    );
  });
});
