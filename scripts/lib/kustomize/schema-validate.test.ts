import { describe, expect, it } from "vitest";
import type { K8sObject } from "./render";
import { modelPath, schemaErrors, unknownFieldErrors } from "./schema-validate";

const service = (port: unknown): K8sObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name: "web" },
  spec: { selector: { app: "web" }, ports: [{ port }] },
});

describe("schemaErrors (kubernetes-models, compiled from the Kubernetes OpenAPI schemas)", () => {
  it("maps apiVersion and kind to the model: core kinds under v1, grouped kinds under their group", () => {
    expect(modelPath("v1", "Service")).toBe("kubernetes-models/v1/Service");
    expect(modelPath("networking.k8s.io/v1", "NetworkPolicy")).toBe(
      "kubernetes-models/networking.k8s.io/v1/NetworkPolicy",
    );
    expect(() => modelPath("../../x", "Service")).toThrow(/not a Kubernetes type/);
  });

  it("accepts a valid object and names the field of an invalid one", async () => {
    expect(await schemaErrors(service(80))).toEqual([]);
    const errors = await schemaErrors(service("eighty"));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^Service\/web: .*spec\/ports\/0\/port must be integer/);
  });

  it("a quantity that is not one, and a kind with no schema", async () => {
    const deployment: K8sObject = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: {
        selector: { matchLabels: { a: "b" } },
        template: {
          metadata: { labels: { a: "b" } },
          spec: { containers: [{ name: "c", image: "i", resources: { requests: { cpu: "two" } } }] },
        },
      },
    };
    expect((await schemaErrors(deployment))[0]).toMatch(/requests\/cpu must match format "quantity"/);
    expect(await schemaErrors({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w" } })).toEqual([
      "Widget/w: no schema for example.com/v1 Widget",
    ]);
  });
});

describe("unknownFieldErrors", () => {
  it("catches the typos the OpenAPI schemas let through", () => {
    const pod: K8sObject = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", lables: {} },
      spec: {
        hostNetwrok: false,
        containers: [
          {
            name: "c",
            image: "i",
            readinesProbe: {},
            livenessProbe: { httpGet: {}, periodSecond: 5 },
            securityContext: { runAsNonroot: true },
            resources: { request: {} },
          },
        ],
      },
    };
    expect(unknownFieldErrors(pod)).toEqual([
      `Pod/p metadata: unknown field "lables"`,
      `Pod/p pod spec: unknown field "hostNetwrok"`,
      `Pod/p container c: unknown field "readinesProbe"`,
      `Pod/p container c securityContext: unknown field "runAsNonroot"`,
      `Pod/p container c resources: unknown field "request"`,
      `Pod/p container c livenessProbe: unknown field "periodSecond"`,
    ]);
  });
});
