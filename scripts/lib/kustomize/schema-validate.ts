// Validates Kubernetes objects against the API's own schemas, offline: kubernetes-models ships a validator compiled
// from the Kubernetes OpenAPI definitions for every built-in kind. Those schemas allow unknown fields (the API server
// refuses them only with strict field validation), so the fields where a typo would silently drop a setting —
// containers, probes, pod specs, security contexts, metadata — are also checked against their known names.
import type { K8sObject } from "./render";
import { podSpecOf } from "./render";

type Validatable = { validate(): void };
type ModelClass = new (data: unknown) => Validatable;

/** API groups of custom resources whose CRD schemas ship as their own models package. */
const CRD_MODELS: Readonly<Record<string, string>> = {
  "monitoring.coreos.com": "@kubernetes-models/prometheus-operator",
};

/** The module of a kind's model: core kinds under v1/, the others under their group (a CRD's in its package). */
export function modelPath(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes("/") ? (apiVersion.split("/") as [string, string]) : ["", apiVersion];
  if (!/^[A-Za-z0-9.-]*$/.test(group) || !/^v\d+[a-z0-9]*$/.test(version) || !/^[A-Z][A-Za-z0-9]*$/.test(kind))
    throw new Error(`not a Kubernetes type: ${apiVersion} ${kind}`);
  const crd = CRD_MODELS[group];
  if (crd) return `${crd}/${group}/${version}/${kind}`;
  return group ? `kubernetes-models/${group}/${version}/${kind}` : `kubernetes-models/${version}/${kind}`;
}

export async function schemaErrors(object: K8sObject): Promise<string[]> {
  const where = `${object.kind}/${object.metadata.name}`;
  let Model: ModelClass | undefined;
  try {
    const loaded = (await import(/* @vite-ignore */ modelPath(object.apiVersion, object.kind))) as Record<
      string,
      ModelClass
    >;
    Model = loaded[object.kind];
  } catch {
    return [`${where}: no schema for ${object.apiVersion} ${object.kind}`];
  }
  if (!Model) return [`${where}: no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [`${where}: ${(error as Error).message}`];
  }
}

const KNOWN: Record<string, readonly string[]> = {
  object: ["apiVersion", "kind", "metadata", "spec", "data", "stringData", "binaryData", "type", "immutable", "status"],
  metadata: ["name", "namespace", "labels", "annotations", "generateName", "finalizers", "ownerReferences"],
  pod: [
    "volumes",
    "initContainers",
    "containers",
    "ephemeralContainers",
    "restartPolicy",
    "terminationGracePeriodSeconds",
    "activeDeadlineSeconds",
    "dnsPolicy",
    "nodeSelector",
    "serviceAccountName",
    "serviceAccount",
    "automountServiceAccountToken",
    "nodeName",
    "hostNetwork",
    "hostPID",
    "hostIPC",
    "shareProcessNamespace",
    "securityContext",
    "imagePullSecrets",
    "hostname",
    "subdomain",
    "affinity",
    "schedulerName",
    "tolerations",
    "hostAliases",
    "priorityClassName",
    "priority",
    "dnsConfig",
    "readinessGates",
    "runtimeClassName",
    "enableServiceLinks",
    "preemptionPolicy",
    "overhead",
    "topologySpreadConstraints",
    "setHostnameAsFQDN",
    "os",
    "hostUsers",
    "schedulingGates",
    "resourceClaims",
    "resources",
  ],
  container: [
    "name",
    "image",
    "command",
    "args",
    "workingDir",
    "ports",
    "envFrom",
    "env",
    "resources",
    "resizePolicy",
    "restartPolicy",
    "volumeMounts",
    "volumeDevices",
    "livenessProbe",
    "readinessProbe",
    "startupProbe",
    "lifecycle",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "imagePullPolicy",
    "securityContext",
    "stdin",
    "stdinOnce",
    "tty",
  ],
  probe: [
    "exec",
    "httpGet",
    "tcpSocket",
    "grpc",
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
    "terminationGracePeriodSeconds",
  ],
  containerSecurity: [
    "capabilities",
    "privileged",
    "seLinuxOptions",
    "windowsOptions",
    "runAsUser",
    "runAsGroup",
    "runAsNonRoot",
    "readOnlyRootFilesystem",
    "allowPrivilegeEscalation",
    "procMount",
    "seccompProfile",
    "appArmorProfile",
  ],
  resources: ["requests", "limits", "claims"],
};

function unknownKeys(value: unknown, kind: keyof typeof KNOWN, where: string): string[] {
  if (!value || typeof value !== "object") return [];
  return Object.keys(value)
    .filter((key) => !KNOWN[kind]!.includes(key))
    .map((key) => `${where}: unknown field "${key}"`);
}

export function unknownFieldErrors(object: K8sObject): string[] {
  const where = `${object.kind}/${object.metadata.name}`;
  const errors = [
    ...unknownKeys(object, "object", where),
    ...unknownKeys(object.metadata, "metadata", `${where} metadata`),
  ];
  const pod = podSpecOf(object);
  if (!pod) return errors;
  errors.push(...unknownKeys(pod, "pod", `${where} pod spec`));
  const containers = [...((pod.initContainers as unknown[]) ?? []), ...((pod.containers as unknown[]) ?? [])] as Array<
    Record<string, unknown>
  >;
  for (const container of containers) {
    const at = `${where} container ${String(container.name)}`;
    errors.push(
      ...unknownKeys(container, "container", at),
      ...unknownKeys(container.securityContext, "containerSecurity", `${at} securityContext`),
      ...unknownKeys(container.resources, "resources", `${at} resources`),
    );
    for (const probe of ["livenessProbe", "readinessProbe", "startupProbe"])
      errors.push(...unknownKeys(container[probe], "probe", `${at} ${probe}`));
  }
  return errors;
}
