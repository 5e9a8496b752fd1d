// Each check of crossReferenceErrors on a small consistent set, then the same set with one thing broken: the check
// must name it (so the manifest test can fail).
import { describe, expect, it } from "vitest";
import { crossReferenceErrors, selects } from "./cross-references";
import type { K8sObject } from "./render";

const labels = { app: "web", tier: "front" };
function consistent(): K8sObject[] {
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "db", namespace: "shop" },
      stringData: { URL: "postgresql://x" },
    },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "shop" }, data: { A: "1" } },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "shop" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: {
          metadata: { labels },
          spec: {
            containers: [
              {
                name: "web",
                image: "app",
                ports: [{ name: "http", containerPort: 3000 }],
                envFrom: [{ configMapRef: { name: "cfg" } }],
                env: [
                  { name: "URL", valueFrom: { secretKeyRef: { name: "db", key: "URL" } } },
                  { name: "IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
                  { name: "PUBLIC", value: "http://$(IP):3000" },
                ],
                volumeMounts: [{ name: "data", mountPath: "/data" }],
              },
            ],
            volumes: [{ name: "data", emptyDir: {} }],
          },
        },
      },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "web", namespace: "shop" },
      spec: { selector: { app: "web" }, ports: [{ port: 80, targetPort: "http" }] },
    },
    {
      apiVersion: "policy/v1",
      kind: "PodDisruptionBudget",
      metadata: { name: "web", namespace: "shop" },
      spec: { minAvailable: 1, selector: { matchLabels: { tier: "front" } } },
    },
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: "web", namespace: "shop" },
      spec: {
        podSelector: { matchLabels: { app: "web" } },
        ingress: [
          {
            from: [
              { podSelector: { matchLabels: { tier: "front" } } },
              { namespaceSelector: {}, podSelector: { matchLabels: { elsewhere: "yes" } } },
            ],
          },
        ],
      },
    },
  ];
}

function broken(edit: (objects: K8sObject[]) => void): string[] {
  const objects = structuredClone(consistent());
  edit(objects);
  return crossReferenceErrors(objects);
}
const find = (objects: K8sObject[], kind: string) =>
  objects.find((o) => o.kind === kind)! as unknown as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("crossReferenceErrors", () => {
  it("a consistent set has none (a peer in another namespace is not checked)", () => {
    expect(crossReferenceErrors(consistent())).toEqual([]);
  });

  it("a Service selecting no pod, or targeting a port no pod names", () => {
    expect(
      broken((o) => {
        find(o, "Service").spec.selector = { app: "api" };
      }),
    ).toEqual([`Service/web: selector {"app":"api"} selects no pod`]);
    expect(
      broken((o) => {
        find(o, "Service").spec.ports[0].targetPort = "https";
      }),
    ).toEqual([`Service/web: targetPort "https" is no container port of the pods it selects`]);
  });

  it("a workload whose selector misses its own template, a PDB or NetworkPolicy selecting nothing", () => {
    expect(
      broken((o) => {
        find(o, "Deployment").spec.selector.matchLabels = { app: "other" };
      }),
    ).toEqual(["Deployment/web: spec.selector does not match its pod template's labels"]);
    expect(
      broken((o) => {
        find(o, "PodDisruptionBudget").spec.selector.matchLabels = { tier: "back" };
      }),
    ).toEqual(["PodDisruptionBudget/web: selector selects no pod"]);
    expect(
      broken((o) => {
        find(o, "NetworkPolicy").spec.podSelector.matchLabels = { app: "x" };
      }),
    ).toEqual(["NetworkPolicy/web: podSelector selects no pod"]);
    expect(
      broken((o) => {
        find(o, "NetworkPolicy").spec.ingress[0].from[0].podSelector.matchLabels = { tier: "x" };
      }),
    ).toEqual([`NetworkPolicy/web: peer podSelector {"tier":"x"} selects no pod`]);
  });

  it("a missing Secret, a missing key, a missing ConfigMap, a mount without its volume, an env reference before its definition", () => {
    expect(
      broken((o) => {
        o.splice(
          o.findIndex((x) => x.kind === "Secret"),
          1,
        );
      }),
    ).toEqual(["Deployment/web container web: Secret db is not in the set"]);
    expect(
      broken((o) => {
        find(o, "Secret").stringData = { OTHER: "x" };
      }),
    ).toEqual(["Deployment/web container web: Secret db has no key URL"]);
    expect(
      broken((o) => {
        o.splice(
          o.findIndex((x) => x.kind === "ConfigMap"),
          1,
        );
      }),
    ).toEqual(["Deployment/web container web: ConfigMap cfg is not in the set"]);
    expect(
      broken((o) => {
        find(o, "Deployment").spec.template.spec.volumes = [];
      }),
    ).toEqual(["Deployment/web container web: volumeMount data names no volume of the pod"]);
    expect(
      broken((o) => {
        find(o, "Deployment").spec.template.spec.containers[0].env.reverse();
      }),
    ).toEqual(["Deployment/web container web: env PUBLIC refers to $(IP), not defined before it"]);
  });

  it("objects outside the set's Namespace", () => {
    expect(
      broken((o) => {
        find(o, "ConfigMap").metadata.namespace = "other";
      }),
    ).toContain("ConfigMap/cfg is in namespace other, which the set does not create");
  });
});

describe("selects", () => {
  it("matchLabels and matchExpressions: In, NotIn, Exists, DoesNotExist", () => {
    const node = { role: "agent", zone: "a" };
    expect(selects({ matchExpressions: [{ key: "role", operator: "In", values: ["agent"] }] }, node)).toBe(true);
    expect(selects({ matchExpressions: [{ key: "role", operator: "NotIn", values: ["agent"] }] }, node)).toBe(false);
    expect(selects({ matchExpressions: [{ key: "gpu", operator: "Exists" }] }, node)).toBe(false);
    expect(selects({ matchExpressions: [{ key: "gpu", operator: "DoesNotExist" }] }, node)).toBe(true);
    expect(selects({}, node)).toBe(true);
    expect(selects(undefined, node)).toBe(false);
  });
});
