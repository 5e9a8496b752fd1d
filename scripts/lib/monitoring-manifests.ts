// Offline checks of the monitoring manifests: the Prometheus operator's ServiceMonitor and PrometheusRule (the fields
// Packrat uses, as the operator's CRDs of monitoring.coreos.com/v1 define them, strict so a misspelt field fails), a
// Grafana dashboard's required fields, and the metric names a PromQL expression refers to.
import { z } from "zod";

/** The CRDs' Duration pattern (monitoring.coreos.com/v1). */
const duration = z
  .string()
  .regex(
    /^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/,
    "not a Prometheus duration",
  );
const labelName = z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/);
const metadata = z.object({
  name: z.string().min(1),
  namespace: z.string().min(1),
  labels: z.record(z.string(), z.string()).optional(),
});
const secretKeySelector = z.strictObject({
  name: z.string().min(1),
  key: z.string().min(1),
  optional: z.boolean().optional(),
});
const labelSelector = z.strictObject({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(
      z.strictObject({
        key: z.string(),
        operator: z.enum(["In", "NotIn", "Exists", "DoesNotExist"]),
        values: z.array(z.string()).optional(),
      }),
    )
    .optional(),
});

export const serviceMonitorSchema = z.strictObject({
  apiVersion: z.literal("monitoring.coreos.com/v1"),
  kind: z.literal("ServiceMonitor"),
  metadata,
  spec: z.strictObject({
    jobLabel: z.string().optional(),
    selector: labelSelector,
    namespaceSelector: z
      .strictObject({ any: z.boolean().optional(), matchNames: z.array(z.string()).optional() })
      .optional(),
    endpoints: z
      .array(
        z.strictObject({
          port: z.string().optional(),
          path: z.string().startsWith("/").optional(),
          scheme: z.enum(["http", "https", "HTTP", "HTTPS"]).optional(),
          interval: duration.optional(),
          scrapeTimeout: duration.optional(),
          // SafeAuthorization: the credentials come from a Secret in the ServiceMonitor's namespace.
          authorization: z
            .strictObject({ type: z.string().optional(), credentials: secretKeySelector.optional() })
            .optional(),
        }),
      )
      .min(1),
  }),
});

const rule = z
  .strictObject({
    alert: z
      .string()
      .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/)
      .optional(),
    record: z.string().optional(),
    expr: z.union([z.string().min(1), z.number().int()]),
    for: duration.optional(),
    keep_firing_for: duration.optional(),
    labels: z.record(labelName, z.string()).optional(),
    annotations: z.record(labelName, z.string()).optional(),
  })
  .refine((r) => (r.alert === undefined) !== (r.record === undefined), "a rule is exactly one of alert or record");

export const prometheusRuleSchema = z.strictObject({
  apiVersion: z.literal("monitoring.coreos.com/v1"),
  kind: z.literal("PrometheusRule"),
  metadata,
  spec: z.strictObject({
    groups: z
      .array(z.strictObject({ name: z.string().min(1), interval: duration.optional(), rules: z.array(rule).min(1) }))
      .min(1),
  }),
});

const gridPos = z.object({
  h: z.number().int().positive(),
  w: z.number().int().min(1).max(24),
  x: z.number().int().min(0).max(23),
  y: z.number().int().min(0),
});
const datasourceRef = z.object({ type: z.string(), uid: z.string() });

/** What Grafana needs to import a dashboard of Prometheus panels: schemaVersion, a title, panels with targets. */
export const grafanaDashboardSchema = z.object({
  title: z.string().min(1),
  uid: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,40}$/)
    .optional(),
  schemaVersion: z.number().int().min(16),
  time: z.object({ from: z.string(), to: z.string() }).optional(),
  templating: z
    .object({
      list: z.array(
        z.object({
          name: z.string().min(1),
          type: z.enum(["datasource", "query", "custom", "constant", "interval", "textbox"]),
          query: z.union([z.string(), z.object({ query: z.string() })]).optional(),
        }),
      ),
    })
    .optional(),
  panels: z
    .array(
      z.object({
        id: z.number().int().positive(),
        type: z.string().min(1),
        title: z.string().min(1),
        gridPos,
        datasource: datasourceRef.optional(),
        targets: z
          .array(
            z.object({
              refId: z.string().min(1),
              expr: z.string().min(1),
              datasource: datasourceRef.optional(),
              legendFormat: z.string().optional(),
            }),
          )
          .min(1),
      }),
    )
    .min(1),
});

export type GrafanaDashboard = z.infer<typeof grafanaDashboardSchema>;

const PAIRS: Record<string, string> = { ")": "(", "]": "[", "}": "{" };
const withoutStrings = (expr: string) => expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');

/** Unbalanced or crossed (), [] and {} outside string literals; [] when they pair up. */
export function bracketErrors(expr: string): string[] {
  const stack: string[] = [];
  for (const ch of withoutStrings(expr)) {
    if (ch === "(" || ch === "[" || ch === "{") stack.push(ch);
    else if (ch in PAIRS) {
      if (stack.pop() !== PAIRS[ch]) return [`unbalanced ${ch} in ${expr}`];
    }
  }
  if (/"(?:[^"\\]|\\.)*$/.test(expr.replace(/"(?:[^"\\]|\\.)*"/g, ""))) return [`unterminated string in ${expr}`];
  return stack.length ? [`unclosed ${stack.join("")} in ${expr}`] : [];
}

const KEYWORDS = new Set([
  "and",
  "or",
  "unless",
  "bool",
  "offset",
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "inf",
  "nan",
  "atan2",
]);

/**
 * The metric names a PromQL expression selects (bare names and `{__name__="…"}` are what Packrat writes): string
 * literals, label matchers, ranges, grouping label lists and Grafana's $variables removed, then every identifier
 * that is not a function call, a keyword or part of a number.
 */
export function metricNamesIn(expr: string): string[] {
  let rest = withoutStrings(expr)
    .replace(/\$\{?\w+\}?/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\{[^}]*\}/g, "")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "");
  rest = rest.replace(/\b\d+(\.\d+)?(e[+-]?\d+)?\b/gi, "");
  const names = new Set<string>();
  for (const match of rest.matchAll(/(?<![\w.:])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = rest.slice(match.index + match[0].length).trimStart();
    if (after.startsWith("(") || KEYWORDS.has(match[0].toLowerCase())) continue;
    names.add(match[0]);
  }
  return [...names];
}

/** A Grafana templating query `label_values(<expr>, <label>)` or `query_result(<expr>)`: the expression in it. */
export function templatingExpression(query: string): string {
  const labelValues = /^\s*label_values\(\s*(.*),\s*[a-zA-Z_]\w*\s*\)\s*$/s.exec(query);
  if (labelValues) return labelValues[1]!;
  const result = /^\s*query_result\((.*)\)\s*$/s.exec(query);
  return result ? result[1]! : query;
}

/** The series names a registry's metrics expose: a histogram is its _bucket, _sum and _count; a summary, _sum and _count and itself. */
// prom-client types `type` as an enum; its registry's JSON carries the name ("counter", "histogram", …).
export function exposedNames(metrics: ReadonlyArray<{ name: string; type: unknown }>): Set<string> {
  const names = new Set<string>();
  for (const { name, type: kind } of metrics) {
    const type = String(kind);
    if (type === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(name + suffix);
    else if (type === "summary") for (const suffix of ["", "_sum", "_count"]) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}
