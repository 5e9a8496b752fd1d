// The monitoring manifests: deploy/kubernetes/components/monitoring (ServiceMonitor, PrometheusRule) rendered through
// overlays/example-monitoring, and deploy/monitoring/grafana-dashboard.json. Structure checked against the operator's
// CRD schemas (@kubernetes-models/prometheus-operator) and the fields we use, Grafana's required ones; every metric any of them names checked against what the agent's metrics
// code registers (so renaming a metric there fails here).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentMetrics } from "../apps/agent/src/metrics";
import { crossReferenceErrors, selects } from "./lib/kustomize/cross-references";
import { renderKustomization, type K8sObject } from "./lib/kustomize/render";
import { schemaErrors, unknownFieldErrors } from "./lib/kustomize/schema-validate";
import {
  bracketErrors,
  exposedNames,
  grafanaDashboardSchema,
  metricNamesIn,
  prometheusRuleSchema,
  serviceMonitorSchema,
  templatingExpression,
} from "./lib/monitoring-manifests";

const root = resolve(import.meta.dirname, "../deploy");
const overlay = renderKustomization(join(root, "kubernetes/overlays/example-monitoring"));
const plain = renderKustomization(join(root, "kubernetes/overlays/example"));
const isCustom = (o: K8sObject) => o.apiVersion.startsWith("monitoring.coreos.com/");
const one = (kind: string): K8sObject => {
  const found = overlay.filter((o) => o.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!;
};
const serviceMonitor = serviceMonitorSchema.parse(one("ServiceMonitor"));
const prometheusRule = prometheusRuleSchema.parse(one("PrometheusRule"));
const dashboard = grafanaDashboardSchema.parse(
  JSON.parse(readFileSync(join(root, "monitoring/grafana-dashboard.json"), "utf8")),
);

/** Series the agent exposes, from its metrics code (prom-client's registry), plus Prometheus's own `up`. */
const known = async () => {
  const names = exposedNames(await new AgentMetrics().registry.getMetricsAsJSON());
  names.add("up");
  return names;
};

const alertExpressions = prometheusRule.spec.groups.flatMap((g) =>
  g.rules.map((r) => ({ at: r.alert ?? r.record!, expr: String(r.expr) })),
);
const dashboardExpressions = [
  ...dashboard.panels.flatMap((p) => p.targets.map((t) => ({ at: `${p.title} ${t.refId}`, expr: t.expr }))),
  ...(dashboard.templating?.list ?? [])
    .filter((v) => v.type === "query" && v.query !== undefined)
    .map((v) => ({
      at: `$${v.name}`,
      expr: templatingExpression(typeof v.query === "string" ? v.query! : v.query!.query),
    })),
];

describe("metric names", () => {
  it("are found in expressions: selectors, not functions, keywords, labels, numbers, strings or Grafana variables", () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.99, sum by (model, le) (rate(a_seconds_bucket{job="x", model=~"$model"}[$__rate_interval]))) > 0.5 and on (model) b_total offset 5m > 1e3',
      ),
    ).toEqual(["a_seconds_bucket", "b_total"]);
    expect(metricNamesIn("changes(up[5m]) >= 3 unless absent(c)")).toEqual(["up", "c"]);
    expect(templatingExpression('label_values(packrat_requests_total{pod=~"$pod"}, model)')).toBe(
      'packrat_requests_total{pod=~"$pod"}',
    );
  });

  it("brackets: unbalanced, crossed and unclosed are reported, brackets inside strings are not", () => {
    expect(bracketErrors('sum(rate(x{a="(]"}[5m]))')).toEqual([]);
    expect(bracketErrors("sum(rate(x[5m])")).toHaveLength(1);
    expect(bracketErrors("sum(rate(x[5m)])")).toHaveLength(1);
    expect(bracketErrors("x)")).toHaveLength(1);
  });

  it("the agent's names come from its code: histograms as _bucket/_sum/_count, counters with _total, the serving process's defaults", async () => {
    const names = await known();
    for (const name of [
      "packrat_request_seconds_bucket",
      "packrat_request_seconds_sum",
      "packrat_request_seconds_count",
      "packrat_requests_total",
      "packrat_agent_process_start_time_seconds",
    ]) {
      expect(names.has(name), name).toBe(true);
    }
    expect(names.has("packrat_request_seconds")).toBe(false);
    expect(names.has("packrat_inference_count")).toBe(false);
  });
});

describe("PrometheusRule and ServiceMonitor (deploy/kubernetes/components/monitoring)", () => {
  it("the plain example overlay has no custom resources: it applies on clusters without the Prometheus operator", () => {
    expect(plain.filter(isCustom)).toEqual([]);
    expect(
      overlay
        .filter(isCustom)
        .map((o) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`)
        .sort(),
    ).toEqual(["PrometheusRule/packrat-agents/packrat-agent", "ServiceMonitor/packrat-agents/packrat-agent"]);
  });

  it("with the component, the built-in objects stay valid against the Kubernetes schemas and refer only to the set", async () => {
    const builtIn = overlay.filter((o) => !isCustom(o));
    expect((await Promise.all(builtIn.map(schemaErrors))).flat()).toEqual([]);
    expect(builtIn.flatMap(unknownFieldErrors)).toEqual([]);
    expect(crossReferenceErrors(overlay)).toEqual([]);
  });

  it("the ServiceMonitor and the PrometheusRule are valid against the operator's own CRD schemas", async () => {
    const custom = overlay.filter(isCustom);
    expect(custom).toHaveLength(2);
    expect((await Promise.all(custom.map(schemaErrors))).flat()).toEqual([]);
    // The schemas do refuse a wrong object: a numeric endpoint port (the CRD wants the port's name).
    const bad = structuredClone(custom.find((o) => o.kind === "ServiceMonitor")!) as K8sObject & {
      spec: { endpoints: Array<{ port: unknown }> };
    };
    bad.spec.endpoints[0]!.port = 8000;
    expect((await schemaErrors(bad)).join("\n")).toMatch(/port must be string/);
  });

  it("the ServiceMonitor scrapes the agents' Service on its oip port at /metrics, with the token the agents require", () => {
    const service = overlay.find((o) => o.kind === "Service" && o.metadata.name === "packrat-agent") as K8sObject & {
      spec: { ports: Array<{ name: string }> };
    };
    expect(selects(serviceMonitor.spec.selector, service.metadata.labels ?? {})).toBe(true);
    expect(serviceMonitor.spec.namespaceSelector?.matchNames).toEqual([service.metadata.namespace]);
    const [endpoint] = serviceMonitor.spec.endpoints;
    expect(service.spec.ports.map((p) => p.name)).toContain(endpoint!.port);
    expect(endpoint!.path).toBe("/metrics");
    const credentials = endpoint!.authorization!.credentials!;
    // The Secret in the ServiceMonitor's namespace (the operator reads it there), with that key.
    const secret = overlay.find((o) => o.kind === "Secret" && o.metadata.name === credentials.name) as K8sObject & {
      stringData: Record<string, string>;
    };
    expect(secret.metadata.namespace).toBe(serviceMonitor.metadata.namespace);
    expect(Object.keys(secret.stringData)).toContain(credentials.key);
    // The agents require the same key as AGENT_METRICS_TOKEN.
    const agent = overlay.find((o) => o.kind === "DaemonSet" && o.metadata.name === "packrat-agent") as K8sObject & {
      spec: {
        template: {
          spec: {
            containers: Array<{
              name: string;
              env: Array<{ name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
            }>;
          };
        };
      };
    };
    const env = agent.spec.template.spec.containers
      .find((c) => c.name === "agent")!
      .env.find((e) => e.name === "AGENT_METRICS_TOKEN");
    expect(env?.valueFrom?.secretKeyRef).toEqual({ name: credentials.name, key: credentials.key });
  });

  it("alerts: agent down, crash loop, instance crash, p99 over threshold, rejections; with severity and summary; on the ServiceMonitor's job", () => {
    const alerts = prometheusRule.spec.groups.flatMap((g) => g.rules);
    expect(alerts.map((a) => a.alert)).toEqual(
      expect.arrayContaining([
        "PackratAgentDown",
        "PackratServingCrashLoop",
        "PackratInstanceCrashed",
        "PackratLatencyP99High",
        "PackratQueueRejections",
      ]),
    );
    for (const alert of alerts) {
      expect(["critical", "warning"], alert.alert).toContain(alert.labels?.severity);
      expect(alert.annotations?.summary, alert.alert).toBeTruthy();
      // The job label of the scraped series is the Service's name (no jobLabel set).
      for (const job of String(alert.expr).matchAll(/job="([^"]*)"/g))
        expect(job[1], alert.alert).toBe("packrat-agent");
    }
    expect(serviceMonitor.spec.jobLabel).toBeUndefined();
    expect(String(alerts.find((a) => a.alert === "PackratLatencyP99High")!.expr)).toMatch(
      /histogram_quantile\(0\.99,.*packrat_request_seconds_bucket/s,
    );
  });
});

describe("Grafana dashboard (deploy/monitoring/grafana-dashboard.json)", () => {
  it("has the fields Grafana requires: schemaVersion, unique panel ids, targets with unique refIds, panels on the 24-column grid", () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
      const refIds = panel.targets.map((t) => t.refId);
      expect(new Set(refIds).size, panel.title).toBe(refIds.length);
    }
    // Every ${variable} a panel uses is defined in templating (or is Grafana's own $__…).
    const defined = new Set((dashboard.templating?.list ?? []).map((v) => v.name));
    const used = JSON.stringify(dashboard.panels).matchAll(/\$\{?(\w+)\}?/g);
    for (const [, name] of used) if (!name!.startsWith("__")) expect(defined.has(name!), name).toBe(true);
  });
});

describe("every metric the alerts and the dashboard name exists on the agent", () => {
  it.each([
    ["PrometheusRule", alertExpressions],
    ["Grafana dashboard", dashboardExpressions],
  ])("%s", async (_, expressions) => {
    const names = await known();
    const problems: string[] = [];
    for (const { at, expr } of expressions) {
      problems.push(...bracketErrors(expr).map((e) => `${at}: ${e}`));
      const used = metricNamesIn(expr);
      if (used.length === 0) problems.push(`${at}: names no metric`);
      for (const name of used) if (!names.has(name)) problems.push(`${at}: ${name} is not an agent metric`);
    }
    expect(problems).toEqual([]);
  });
});
