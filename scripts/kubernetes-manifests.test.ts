// deploy/kubernetes rendered as `kubectl kustomize` renders it (scripts/lib/kustomize; the example overlay's output
// was compared with kubectl kustomize 5.5), every object validated against the Kubernetes schemas (offline), the
// set checked to refer only to itself, and the deployment rules of issue #25 checked on what would be applied.
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { crossReferenceErrors, podsOf, selects } from "./lib/kustomize/cross-references";
import { renderKustomization, type K8sObject } from "./lib/kustomize/render";
import { schemaErrors, unknownFieldErrors } from "./lib/kustomize/schema-validate";

const root = resolve(import.meta.dirname, "../deploy/kubernetes");
const overlay = renderKustomization(join(root, "overlays/example"));
const base = renderKustomization(join(root, "base"));

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered YAML is untyped; the schema check above types it */
const get = (kind: string, name: string): any => {
  const found = overlay.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`${kind}/${name} is not in the overlay`);
  return found;
};
const containersOf = (o: any): any[] => [
  ...(o.spec.template.spec.initContainers ?? []),
  ...o.spec.template.spec.containers,
];
const envOf = (container: any, name: string) => (container.env ?? []).find((e: any) => e.name === name);
/** Kubernetes quantities as numbers: "16" → 16, "100m" → 0.1, "32Gi" → 32 × 2^30. */
const quantity = (q: string): number => {
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti)?$/.exec(q);
  if (!m) throw new Error(`not a quantity: ${q}`);
  const scale = { m: 1e-3, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 }[m[2] as "m"] ?? 1;
  return Number(m[1]) * scale;
};

describe("deploy/kubernetes: the example overlay", () => {
  it("renders the objects the issue asks for", () => {
    expect(overlay.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      "ConfigMap/packrat-config",
      "DaemonSet/packrat-agent",
      "Deployment/packrat-control-plane",
      "Job/packrat-migrate",
      "Namespace/packrat",
      "Namespace/packrat-agents",
      "NetworkPolicy/agent",
      "NetworkPolicy/allow-dns",
      "NetworkPolicy/allow-dns",
      "NetworkPolicy/control-plane",
      "NetworkPolicy/default-deny",
      "NetworkPolicy/default-deny",
      "NetworkPolicy/migrate",
      "PodDisruptionBudget/packrat-control-plane",
      "Secret/packrat-agent-enrollment",
      "Secret/packrat-auth",
      "Secret/packrat-database",
      "Service/packrat-agent",
      "Service/packrat-control-plane",
    ]);
  });

  it("every object is valid against its Kubernetes schema, with no unknown fields where typos hide", async () => {
    const errors = (await Promise.all(overlay.map(schemaErrors))).flat();
    expect(errors).toEqual([]);
    expect(overlay.flatMap(unknownFieldErrors)).toEqual([]);
  });

  it("refers only to itself: selectors select pods, Secrets and ConfigMaps (and keys) exist; the control plane's and the agents' namespaces", () => {
    expect(crossReferenceErrors(overlay)).toEqual([]);
    expect(new Set(overlay.filter((o) => o.kind !== "Namespace").map((o) => o.metadata.namespace))).toEqual(
      new Set(["packrat", "packrat-agents"]),
    );
  });

  it("the base names exactly the three Secrets an overlay must supply, and nothing else is missing", () => {
    expect(
      crossReferenceErrors(base)
        .map((e) => /Secret (\S+) is not in the set/.exec(e)?.[1] ?? e)
        .sort(),
    ).toEqual([
      "packrat-agent-enrollment",
      "packrat-auth",
      "packrat-auth",
      "packrat-auth",
      "packrat-database",
      "packrat-database",
    ]);
  });

  it("control plane: ≥ 2 replicas behind a Service, readiness /api/health, liveness /api/health/live, a rollout that never drops below the replica count", () => {
    const deployment = get("Deployment", "packrat-control-plane");
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(deployment.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    const [container] = deployment.spec.template.spec.containers;
    expect(container.readinessProbe.httpGet).toEqual({ path: "/api/health", port: "http" });
    expect(container.livenessProbe.httpGet).toEqual({ path: "/api/health/live", port: "http" });
    const service = get("Service", "packrat-control-plane");
    expect(selects({ matchLabels: service.spec.selector }, deployment.spec.template.metadata.labels)).toBe(true);
    const pdb = get("PodDisruptionBudget", "packrat-control-plane");
    expect(selects(pdb.spec.selector, deployment.spec.template.metadata.labels)).toBe(true);
    expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    // The same cookie secret and the external database on every replica.
    expect(envOf(container, "BETTER_AUTH_SECRET").valueFrom.secretKeyRef.name).toBe("packrat-auth");
    expect(envOf(container, "DATABASE_URL").valueFrom.secretKeyRef.name).toBe("packrat-database");
  });

  it("replicas share the artifact store through PostgreSQL; the migration Job runs scripts/migrate.ts against the same database", () => {
    expect(get("ConfigMap", "packrat-config").data.ARTIFACT_STORE).toBe("postgres");
    const [migrate] = get("Job", "packrat-migrate").spec.template.spec.containers;
    expect(migrate.command).toEqual(["node", "--import", "tsx", "scripts/migrate.ts"]);
    expect(envOf(migrate, "DATABASE_URL").valueFrom.secretKeyRef).toEqual({
      name: "packrat-database",
      key: "DATABASE_URL",
    });
  });

  it("agents: a DaemonSet on labelled nodes, hostNetwork off, Guaranteed QoS with whole CPUs (requests = limits)", () => {
    const agent = get("DaemonSet", "packrat-agent");
    const pod = agent.spec.template.spec;
    expect(pod.hostNetwork).toBe(false);
    expect(pod.nodeSelector).toEqual({ "packrat.dev/agent": "true" });
    for (const container of containersOf(agent)) {
      // Guaranteed QoS needs requests = limits for CPU and memory in every container, init containers included.
      expect(container.resources.requests, container.name).toEqual(container.resources.limits);
      expect(Object.keys(container.resources.requests).sort()).toEqual(["cpu", "memory"]);
    }
    const serving = pod.containers.find((c: any) => c.name === "agent");
    const cpus = quantity(serving.resources.requests.cpu);
    // Exclusive CPUs under the static CPU manager policy only for an integer count: 16 here.
    expect(Number.isInteger(cpus) && cpus >= 1).toBe(true);
    expect(cpus).toBe(16);
    expect(serving.command).toEqual(["node", "--import", "tsx", "apps/agent/src/cli.ts"]);
  });

  it("agents enroll with a token from a Secret and keep their own token in a hostPath state directory, named by the node", () => {
    const pod = get("DaemonSet", "packrat-agent").spec.template.spec;
    const serving = pod.containers.find((c: any) => c.name === "agent");
    // The enrollment token comes from a read-only Secret volume as a file, never through the environment.
    expect(serving.env.find((e: any) => e.name === "AGENT_TOKEN")).toBeUndefined();
    const tokenFile = envOf(serving, "AGENT_TOKEN_FILE").value as string;
    const tokenMount = serving.volumeMounts.find((m: any) => tokenFile.startsWith(`${m.mountPath}/`));
    expect(tokenMount.readOnly).toBe(true);
    const tokenVolume = pod.volumes.find((v: any) => v.name === tokenMount.name).secret;
    expect(tokenVolume.secretName).toBe("packrat-agent-enrollment");
    expect(tokenVolume.items).toEqual([{ key: "AGENT_TOKEN", path: tokenFile.slice(tokenMount.mountPath.length + 1) }]);
    // Owner and group read only; the group is the agent's (fsGroup), the agent runs as that user.
    expect(tokenVolume.defaultMode).toBe(0o440);
    expect(pod.securityContext.fsGroup).toBe(serving.securityContext.runAsGroup);
    expect(get("Secret", "packrat-agent-enrollment").stringData.AGENT_TOKEN).toMatch(/^prat_enroll_/);
    const stateDir = envOf(serving, "AGENT_STATE_DIR").value;
    const mount = serving.volumeMounts.find((m: any) => m.mountPath === stateDir);
    expect(pod.volumes.find((v: any) => v.name === mount.name).hostPath).toEqual({
      path: "/var/lib/packrat-agent",
      type: "DirectoryOrCreate",
    });
    expect(envOf(serving, "AGENT_HOST_NAME").valueFrom.fieldRef.fieldPath).toBe("spec.nodeName");
    const controlPlane = get("Service", "packrat-control-plane");
    // The Service is in another namespace than the agents: its name alone would not resolve.
    expect(envOf(serving, "PACKRAT_CONTROL_PLANE_URL").value).toBe(
      `http://${controlPlane.metadata.name}.${controlPlane.metadata.namespace}.svc:3000`,
    );
  });

  it("OIP traffic: a headless Service over the agents' oip port; every agent is ready only while it serves", () => {
    const service = get("Service", "packrat-agent");
    const agent = get("DaemonSet", "packrat-agent");
    expect(service.spec.clusterIP).toBe("None");
    expect(selects({ matchLabels: service.spec.selector }, agent.spec.template.metadata.labels)).toBe(true);
    const serving = agent.spec.template.spec.containers.find((c: any) => c.name === "agent");
    expect(serving.ports).toEqual([{ name: "oip", containerPort: 8000, protocol: "TCP" }]);
    expect(serving.readinessProbe.httpGet.path).toBe("/v2/health/ready");
  });

  it("every container asks for CPU and memory; the images are the overlay's", () => {
    for (const pods of podsOf(overlay)) {
      for (const container of [...(pods.spec.initContainers ?? []), ...(pods.spec.containers ?? [])] as any[]) {
        expect(container.resources?.requests?.cpu, `${pods.owner} ${container.name}`).toBeDefined();
        expect(container.resources?.requests?.memory, `${pods.owner} ${container.name}`).toBeDefined();
        expect(container.image).toBe("registry.example.com/packrat:0.1.0");
      }
    }
  });

  it("network policies: deny by default; only inference clients and the scraper reach agents; agents reach only the control plane", () => {
    for (const namespace of ["packrat", "packrat-agents"]) {
      const deny = overlay.find(
        (o) => o.kind === "NetworkPolicy" && o.metadata.name === "default-deny" && o.metadata.namespace === namespace,
      ) as any;
      expect(deny?.spec, namespace).toEqual({ podSelector: {}, policyTypes: ["Ingress", "Egress"] });
      expect(
        overlay.some(
          (o) => o.kind === "NetworkPolicy" && o.metadata.name === "allow-dns" && o.metadata.namespace === namespace,
        ),
        namespace,
      ).toBe(true);
    }
    const agentPolicy = get("NetworkPolicy", "agent");
    const agentLabels = get("DaemonSet", "packrat-agent").spec.template.metadata.labels;
    const controlPlaneLabels = get("Deployment", "packrat-control-plane").spec.template.metadata.labels;
    expect(selects(agentPolicy.spec.podSelector, agentLabels)).toBe(true);
    const sources = agentPolicy.spec.ingress.flatMap((rule: any) =>
      rule.from.map((peer: any) => peer.podSelector.matchLabels),
    );
    expect(sources).toEqual([{ "packrat.dev/inference-client": "true" }, { "app.kubernetes.io/name": "prometheus" }]);
    expect(agentPolicy.spec.ingress.every((rule: any) => rule.ports.every((p: any) => p.port === 8000))).toBe(true);
    // Egress: the control plane's pods on 3000, nothing else (DNS comes from allow-dns).
    expect(agentPolicy.spec.egress).toHaveLength(1);
    expect(selects(agentPolicy.spec.egress[0].to[0].podSelector, controlPlaneLabels)).toBe(true);
    expect(agentPolicy.spec.egress[0].to[0].namespaceSelector).toEqual({
      matchLabels: { "kubernetes.io/metadata.name": "packrat" },
    });
    expect(agentPolicy.spec.egress[0].ports).toEqual([{ protocol: "TCP", port: 3000 }]);
    // The control plane admits the agents; the example overlay narrows PostgreSQL to its subnet.
    const cp = get("NetworkPolicy", "control-plane");
    expect(
      cp.spec.ingress[0].from.some(
        (peer: any) =>
          selects(peer.podSelector, agentLabels) &&
          peer.namespaceSelector?.matchLabels?.["kubernetes.io/metadata.name"] === "packrat-agents",
      ),
    ).toBe(true);
    expect(cp.spec.egress[0]).toEqual({
      to: [{ ipBlock: { cidr: "10.20.0.0/24" } }],
      ports: [{ protocol: "TCP", port: 5432 }],
    });
  });

  it("nothing runs as root but the agents' init container that hands over the hostPath", () => {
    const rootContainers: string[] = [];
    for (const o of overlay) {
      const pod = (o as K8sObject & { spec?: { template?: { spec?: any } } }).spec?.template?.spec;
      if (!pod) continue;
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        const user = container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser;
        if (user === undefined || user === 0) rootContainers.push(`${o.metadata.name}/${container.name}`);
        expect(container.securityContext?.allowPrivilegeEscalation, container.name).toBe(false);
      }
    }
    expect(rootContainers).toEqual(["packrat-agent/state-dir"]);
  });
});

describe("deploy/kubernetes: Pod Security", () => {
  const namespace = (name: string): any => overlay.find((o) => o.kind === "Namespace" && o.metadata.name === name);
  const podsIn = (ns: string) =>
    overlay.filter((o) => o.metadata.namespace === ns && (o as any).spec?.template?.spec) as any[];

  it('the control plane\'s namespace enforces "restricted"; the agents\' alone is "privileged", auditing and warning at "restricted"', () => {
    expect(namespace("packrat").metadata.labels).toMatchObject({ "pod-security.kubernetes.io/enforce": "restricted" });
    expect(namespace("packrat-agents").metadata.labels).toMatchObject({
      "pod-security.kubernetes.io/enforce": "privileged",
      "pod-security.kubernetes.io/audit": "restricted",
      "pod-security.kubernetes.io/warn": "restricted",
    });
    expect(
      podsIn("packrat")
        .map((o) => `${o.kind}/${o.metadata.name}`)
        .sort(),
    ).toEqual(["Deployment/packrat-control-plane", "Job/packrat-migrate"]);
    expect(podsIn("packrat-agents").map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(["DaemonSet/packrat-agent"]);
  });

  it('every pod in packrat passes "restricted", with a read-only root: non-root, no escalation, ALL capabilities dropped, RuntimeDefault seccomp, emptyDir/Secret/ConfigMap volumes only', () => {
    const problems: string[] = [];
    for (const o of podsIn("packrat")) {
      const pod = o.spec.template.spec;
      if (pod.hostNetwork || pod.hostPID || pod.hostIPC) problems.push(`${o.metadata.name}: host namespaces`);
      for (const volume of pod.volumes ?? []) {
        if (!volume.emptyDir && !volume.secret && !volume.configMap && !volume.projected)
          problems.push(`${o.metadata.name}: volume ${volume.name} is not emptyDir/Secret/ConfigMap`);
      }
      for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
        const at = `${o.metadata.name}/${c.name}`;
        const sc = c.securityContext ?? {};
        if ((sc.runAsNonRoot ?? pod.securityContext?.runAsNonRoot) !== true) problems.push(`${at}: runAsNonRoot`);
        if ((sc.runAsUser ?? pod.securityContext?.runAsUser) === 0) problems.push(`${at}: runs as root`);
        if (sc.privileged) problems.push(`${at}: privileged`);
        if (sc.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation`);
        const added = (sc.capabilities?.add ?? []).filter((cap: string) => cap !== "NET_BIND_SERVICE");
        if (JSON.stringify(sc.capabilities?.drop) !== JSON.stringify(["ALL"]) || added.length)
          problems.push(`${at}: capabilities`);
        if ((sc.seccompProfile ?? pod.securityContext?.seccompProfile)?.type !== "RuntimeDefault")
          problems.push(`${at}: seccompProfile`);
        if (sc.readOnlyRootFilesystem !== true) problems.push(`${at}: readOnlyRootFilesystem`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("the control plane's writable places are volumes: /data, /tmp and Next's cache", () => {
    const container = get("Deployment", "packrat-control-plane").spec.template.spec.containers[0];
    expect(container.volumeMounts.map((m: any) => m.mountPath).sort()).toEqual(["/app/.next/cache", "/data", "/tmp"]);
  });

  it("the agent keeps only what its host state needs beyond that: the hostPath state dir and the root init container that hands it over", () => {
    const pod = get("DaemonSet", "packrat-agent").spec.template.spec;
    expect((pod.volumes ?? []).filter((v: any) => v.hostPath).map((v: any) => v.hostPath.path)).toEqual([
      "/var/lib/packrat-agent",
    ]);
    const init = pod.initContainers.find((c: any) => c.name === "state-dir");
    expect(init.securityContext.capabilities).toEqual({ drop: ["ALL"], add: ["CHOWN", "FOWNER"] });
    const agent = pod.containers.find((c: any) => c.name === "agent");
    expect(agent.securityContext).toMatchObject({
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(pod.hostNetwork).toBe(false);
    expect(pod.hostPID).toBeUndefined();
  });

  it("the agents' enrollment Secret is in their namespace, the control plane's Secrets in its own", () => {
    const ns = (name: string) =>
      overlay.find((o) => o.kind === "Secret" && o.metadata.name === name)?.metadata.namespace;
    expect([ns("packrat-database"), ns("packrat-auth"), ns("packrat-agent-enrollment")]).toEqual([
      "packrat",
      "packrat",
      "packrat-agents",
    ]);
  });
});
