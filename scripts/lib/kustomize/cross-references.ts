// Checks a rendered set of Kubernetes objects refers only to itself: Service and PodDisruptionBudget selectors select
// pods, a workload's selector matches its own template, named target ports exist, NetworkPolicy selectors within
// the namespace select pods, every Secret and ConfigMap (and Secret key) a pod uses is in the set, every volume
// mount names a volume, every object sits in the set's Namespace, and $(VAR) references in env values name
// variables defined before them.
import type { K8sObject } from "./render";
import { podSpecOf } from "./render";

type Labels = Record<string, string>;
interface LabelSelector {
  matchLabels?: Labels;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: KeyRef; configMapKeyRef?: KeyRef };
}
interface KeyRef {
  name: string;
  key: string;
  optional?: boolean;
}
interface Container {
  name: string;
  env?: EnvVar[];
  envFrom?: Array<{
    secretRef?: { name: string; optional?: boolean };
    configMapRef?: { name: string; optional?: boolean };
  }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  volumes?: Array<{
    name: string;
    secret?: { secretName: string; optional?: boolean };
    configMap?: { name: string; optional?: boolean };
  }>;
  imagePullSecrets?: Array<{ name: string }>;
}

export interface Pods {
  owner: string;
  labels: Labels;
  spec: PodSpec;
  namespace: string | undefined;
}

/** matchLabels and matchExpressions (In, NotIn, Exists, DoesNotExist) against a label set; {} selects everything. */
export function selects(selector: LabelSelector | undefined, labels: Labels): boolean {
  if (!selector) return false;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const has = key in labels;
    if (operator === "In" && !(has && values.includes(labels[key]!))) return false;
    if (operator === "NotIn" && has && values.includes(labels[key]!)) return false;
    if (operator === "Exists" && !has) return false;
    if (operator === "DoesNotExist" && has) return false;
  }
  return true;
}

const id = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;

/** The pod templates of the workloads (and bare pods) in the set. */
export function podsOf(objects: readonly K8sObject[]): Pods[] {
  return objects.flatMap((o) => {
    const spec = podSpecOf(o) as PodSpec | undefined;
    if (!spec) return [];
    const template =
      o.kind === "Pod"
        ? o.metadata
        : o.kind === "CronJob"
          ? ((o.spec as { jobTemplate?: { spec?: { template?: { metadata?: { labels?: Labels } } } } }).jobTemplate
              ?.spec?.template?.metadata ?? {})
          : ((o.spec as { template?: { metadata?: { labels?: Labels } } }).template?.metadata ?? {});
    return [{ owner: id(o), labels: template.labels ?? {}, spec, namespace: o.metadata.namespace }];
  });
}

export function crossReferenceErrors(objects: readonly K8sObject[]): string[] {
  const errors: string[] = [];
  const pods = podsOf(objects);
  const named = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);

  // Namespaces: every namespaced object in a Namespace of the set.
  const namespaces = new Set(objects.filter((o) => o.kind === "Namespace").map((o) => o.metadata.name));
  for (const o of objects) {
    if (o.kind === "Namespace") continue;
    if (!o.metadata.namespace) errors.push(`${id(o)} has no namespace`);
    else if (!namespaces.has(o.metadata.namespace))
      errors.push(`${id(o)} is in namespace ${o.metadata.namespace}, which the set does not create`);
  }

  // Workloads: the selector matches the template.
  for (const o of objects) {
    const selector = (o.spec as { selector?: LabelSelector } | undefined)?.selector;
    if (!["Deployment", "DaemonSet", "StatefulSet", "ReplicaSet"].includes(o.kind)) continue;
    const pod = pods.find((p) => p.owner === id(o));
    if (!pod || !selects(selector, pod.labels))
      errors.push(`${id(o)}: spec.selector does not match its pod template's labels`);
  }

  // Services: the selector selects pods, and a named targetPort is a port those pods name.
  for (const service of objects.filter((o) => o.kind === "Service")) {
    const spec = service.spec as { selector?: Labels; ports?: Array<{ name?: string; targetPort?: string | number }> };
    if (!spec.selector) continue; // a Service without a selector has endpoints managed elsewhere
    const matched = pods.filter(
      (p) => p.namespace === service.metadata.namespace && selects({ matchLabels: spec.selector }, p.labels),
    );
    if (!matched.length) {
      errors.push(`${id(service)}: selector ${JSON.stringify(spec.selector)} selects no pod`);
      continue;
    }
    for (const port of spec.ports ?? []) {
      if (typeof port.targetPort !== "string") continue;
      const found = matched.some((p) =>
        (p.spec.containers ?? []).some((c) => (c.ports ?? []).some((cp) => cp.name === port.targetPort)),
      );
      if (!found)
        errors.push(`${id(service)}: targetPort "${port.targetPort}" is no container port of the pods it selects`);
    }
  }

  // PodDisruptionBudgets select pods.
  for (const pdb of objects.filter((o) => o.kind === "PodDisruptionBudget")) {
    const selector = (pdb.spec as { selector?: LabelSelector }).selector;
    if (!pods.some((p) => p.namespace === pdb.metadata.namespace && selects(selector, p.labels)))
      errors.push(`${id(pdb)}: selector selects no pod`);
  }

  // NetworkPolicies: the policy's own selector (unless {}) and in-namespace peers select pods.
  for (const policy of objects.filter((o) => o.kind === "NetworkPolicy")) {
    const spec = policy.spec as {
      podSelector?: LabelSelector;
      ingress?: Array<{ from?: Peer[] }>;
      egress?: Array<{ to?: Peer[] }>;
    };
    const inNamespace = pods.filter((p) => p.namespace === policy.metadata.namespace);
    const empty = (s?: LabelSelector) =>
      !s || (!Object.keys(s.matchLabels ?? {}).length && !(s.matchExpressions ?? []).length);
    if (!empty(spec.podSelector) && !inNamespace.some((p) => selects(spec.podSelector, p.labels)))
      errors.push(`${id(policy)}: podSelector selects no pod`);
    const peers = [
      ...(spec.ingress ?? []).flatMap((r) => r.from ?? []),
      ...(spec.egress ?? []).flatMap((r) => r.to ?? []),
    ];
    for (const peer of peers) {
      if (!peer.podSelector || peer.namespaceSelector || empty(peer.podSelector)) continue;
      if (!inNamespace.some((p) => selects(peer.podSelector, p.labels)))
        errors.push(`${id(policy)}: peer podSelector ${JSON.stringify(peer.podSelector.matchLabels)} selects no pod`);
    }
  }

  // Secrets and ConfigMaps used by pods exist, with the keys asked for.
  const keysOf = (o: K8sObject) =>
    new Set([
      ...Object.keys((o.data as object | undefined) ?? {}),
      ...Object.keys((o.stringData as object | undefined) ?? {}),
    ]);
  const need = (
    owner: string,
    kind: "Secret" | "ConfigMap",
    name: string,
    key: string | undefined,
    optional: boolean | undefined,
  ) => {
    if (optional) return;
    const found = named(kind, name);
    if (!found) errors.push(`${owner}: ${kind} ${name} is not in the set`);
    else if (key !== undefined && !keysOf(found).has(key)) errors.push(`${owner}: ${kind} ${name} has no key ${key}`);
  };
  for (const pod of pods) {
    for (const container of [...(pod.spec.initContainers ?? []), ...(pod.spec.containers ?? [])]) {
      const owner = `${pod.owner} container ${container.name}`;
      const defined = new Set<string>();
      for (const env of container.env ?? []) {
        const secret = env.valueFrom?.secretKeyRef;
        const config = env.valueFrom?.configMapKeyRef;
        if (secret) need(owner, "Secret", secret.name, secret.key, secret.optional);
        if (config) need(owner, "ConfigMap", config.name, config.key, config.optional);
        for (const [, variable] of (env.value ?? "").matchAll(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g)) {
          if (!defined.has(variable!))
            errors.push(`${owner}: env ${env.name} refers to $(${variable}), not defined before it`);
        }
        defined.add(env.name);
      }
      for (const mount of container.volumeMounts ?? []) {
        if (!(pod.spec.volumes ?? []).some((v) => v.name === mount.name))
          errors.push(`${owner}: volumeMount ${mount.name} names no volume of the pod`);
      }
      for (const from of container.envFrom ?? []) {
        if (from.secretRef) need(owner, "Secret", from.secretRef.name, undefined, from.secretRef.optional);
        if (from.configMapRef) need(owner, "ConfigMap", from.configMapRef.name, undefined, from.configMapRef.optional);
      }
    }
    for (const volume of pod.spec.volumes ?? []) {
      if (volume.secret)
        need(
          `${pod.owner} volume ${volume.name}`,
          "Secret",
          volume.secret.secretName,
          undefined,
          volume.secret.optional,
        );
      if (volume.configMap)
        need(
          `${pod.owner} volume ${volume.name}`,
          "ConfigMap",
          volume.configMap.name,
          undefined,
          volume.configMap.optional,
        );
    }
    for (const pull of pod.spec.imagePullSecrets ?? []) need(pod.owner, "Secret", pull.name, undefined, false);
  }
  return errors;
}

interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: unknown;
}
