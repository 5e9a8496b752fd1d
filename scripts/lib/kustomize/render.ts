// Renders a kustomization the way `kubectl kustomize` does, for the subset Packrat's manifests use: resources
// (files and directories with their own kustomization), components (kind Component: applied to what the resources
// rendered, before the kustomization's own patches), namespace, images and strategic-merge patches (files or
// inline). Anything else in a kustomization is refused rather than ignored, so a test that renders with this never
// checks something other than what kubectl would apply.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { load, loadAll } from "js-yaml";
import { KustomizeError } from "./errors";
import { mergeObjects } from "./strategic-merge";

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; [key: string]: unknown };
  [key: string]: unknown;
}

interface ImageRule {
  name: string;
  newName?: string;
  newTag?: string;
  digest?: string;
}
interface PatchRule {
  path?: string;
  patch?: string;
}
interface Kustomization {
  kind?: string;
  namespace?: string;
  resources?: string[];
  components?: string[];
  images?: ImageRule[];
  patches?: PatchRule[];
}

const FILE_NAMES = ["kustomization.yaml", "kustomization.yml", "Kustomization"];
const SUPPORTED = new Set(["apiVersion", "kind", "namespace", "resources", "components", "images", "patches"]);
const COMPONENT = "Component";
/** Kinds without a namespace: the namespace transformer leaves them alone. */
const CLUSTER_SCOPED = new Set([
  "Namespace",
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "PersistentVolume",
  "StorageClass",
  "PriorityClass",
  "IngressClass",
  "RuntimeClass",
]);

function asObject(value: unknown, parameter: string): K8sObject {
  const object = value as Partial<K8sObject> | null;
  if (!object || typeof object !== "object" || Array.isArray(object))
    throw new KustomizeError("invalid", parameter, "not a mapping");
  if (typeof object.apiVersion !== "string" || typeof object.kind !== "string")
    throw new KustomizeError("invalid", parameter, "needs apiVersion and kind");
  if (!object.metadata || typeof object.metadata.name !== "string")
    throw new KustomizeError("invalid", parameter, `${object.kind} needs metadata.name`);
  return object as K8sObject;
}

function readKustomization(dir: string): Kustomization {
  const file = FILE_NAMES.map((name) => join(dir, name)).find((path) => existsSync(path));
  if (!file) throw new KustomizeError("not-found", dir, "no kustomization.yaml");
  const parsed = load(readFileSync(file, "utf8"), { filename: file }) as Record<string, unknown> | null;
  if (!parsed || typeof parsed !== "object") throw new KustomizeError("invalid", file, "empty kustomization");
  for (const key of Object.keys(parsed)) {
    if (!SUPPORTED.has(key))
      throw new KustomizeError(
        "unsupported",
        `${file}: ${key}`,
        `only ${[...SUPPORTED].join(", ")} are supported here`,
      );
  }
  return parsed as Kustomization;
}

/** The objects of a YAML file (multi-document; empty documents skipped). */
export function readObjects(file: string): K8sObject[] {
  return loadAll(readFileSync(file, "utf8"), null, { filename: file })
    .filter((doc) => doc !== null && doc !== undefined)
    .map((doc, i) => asObject(doc, `${file} (document ${i + 1})`));
}

const sameTarget = (object: K8sObject, patch: K8sObject) =>
  object.kind === patch.kind &&
  object.apiVersion === patch.apiVersion &&
  object.metadata.name === patch.metadata.name &&
  (patch.metadata.namespace === undefined || patch.metadata.namespace === object.metadata.namespace);

function applyPatch(objects: K8sObject[], patch: K8sObject, parameter: string): K8sObject[] {
  const index = objects.findIndex((o) => sameTarget(o, patch));
  if (index < 0)
    throw new KustomizeError("no-patch-target", parameter, `no ${patch.kind} ${patch.metadata.name} to patch`);
  const next = [...objects];
  next[index] = mergeObjects(objects[index]!, patch) as K8sObject;
  return next;
}

/** `name[:tag][@digest]` → its parts (a registry port's colon is not a tag). */
export function parseImage(image: string): { name: string; tag?: string; digest?: string } {
  const [rest, digest] = image.split("@") as [string, string | undefined];
  const slash = rest.lastIndexOf("/");
  const colon = rest.lastIndexOf(":");
  const hasTag = colon > slash;
  return {
    name: hasTag ? rest.slice(0, colon) : rest,
    ...(hasTag ? { tag: rest.slice(colon + 1) } : {}),
    ...(digest ? { digest } : {}),
  };
}

export function rewriteImage(image: string, rules: readonly ImageRule[]): string {
  const parsed = parseImage(image);
  const rule = rules.find((r) => r.name === parsed.name);
  if (!rule) return image;
  const name = rule.newName ?? parsed.name;
  if (rule.digest) return `${name}@${rule.digest}`;
  const tag = rule.newTag ?? parsed.tag;
  return `${name}${tag ? `:${tag}` : ""}${!rule.newTag && parsed.digest ? `@${parsed.digest}` : ""}`;
}

/** The pod spec of a workload object, if it has one. */
export function podSpecOf(object: K8sObject): Record<string, unknown> | undefined {
  const spec = object.spec as Record<string, unknown> | undefined;
  if (!spec) return undefined;
  if (object.kind === "Pod") return spec;
  if (object.kind === "CronJob")
    return (spec.jobTemplate as { spec?: { template?: { spec?: Record<string, unknown> } } })?.spec?.template?.spec;
  return (spec.template as { spec?: Record<string, unknown> } | undefined)?.spec;
}

/**
 * A kustomization's objects; a Component starts from the objects of the kustomization that names it (`inherited`)
 * and transforms them with its own, as kustomize does (resources, then components, then patches and the rest).
 */
function renderDir(dir: string, seen: Set<string>, inherited?: K8sObject[]): K8sObject[] {
  const key = resolve(dir);
  if (seen.has(key)) throw new KustomizeError("invalid", dir, "kustomizations include each other in a cycle");
  seen.add(key);
  const kustomization = readKustomization(dir);
  const isComponent = kustomization.kind === COMPONENT;
  if (isComponent && !inherited)
    throw new KustomizeError("invalid", dir, "a Component is named under components:, not resources:");
  if (!isComponent && inherited)
    throw new KustomizeError("invalid", dir, "only a kustomization of kind Component can be named under components:");
  let objects: K8sObject[] = [...(inherited ?? [])];
  for (const resource of kustomization.resources ?? []) {
    const path = join(dir, resource);
    if (!existsSync(path)) throw new KustomizeError("not-found", path, "resource not found");
    objects.push(...(statSync(path).isDirectory() ? renderDir(path, new Set(seen)) : readObjects(path)));
  }
  for (const component of kustomization.components ?? []) {
    const path = join(dir, component);
    if (!existsSync(path) || !statSync(path).isDirectory())
      throw new KustomizeError("not-found", path, "component directory not found");
    objects = renderDir(path, new Set(seen), objects);
  }
  for (const [i, rule] of (kustomization.patches ?? []).entries()) {
    if ((rule.path === undefined) === (rule.patch === undefined))
      throw new KustomizeError("invalid", `${dir} patches[${i}]`, "needs exactly one of path or patch");
    const extra = Object.keys(rule).filter((k) => k !== "path" && k !== "patch");
    if (extra.length)
      throw new KustomizeError(
        "unsupported",
        `${dir} patches[${i}]`,
        `${extra.join(", ")} not supported (target the patch by its kind and name)`,
      );
    const patches =
      rule.path !== undefined
        ? readObjects(join(dir, rule.path))
        : loadAll(rule.patch!).map((doc, j) => asObject(doc, `${dir} patches[${i}] (document ${j + 1})`));
    for (const patch of patches) objects = applyPatch(objects, patch, `${dir} patches[${i}]`);
  }
  if (kustomization.namespace) {
    objects = objects.map((o) =>
      CLUSTER_SCOPED.has(o.kind) ? o : { ...o, metadata: { ...o.metadata, namespace: kustomization.namespace } },
    );
  }
  const images = kustomization.images ?? [];
  if (images.length) {
    objects = objects.map((object) => {
      const copy = structuredClone(object);
      const pod = podSpecOf(copy);
      for (const list of ["initContainers", "containers"]) {
        for (const container of (pod?.[list] as Array<{ image?: string }> | undefined) ?? []) {
          if (container.image) container.image = rewriteImage(container.image, images);
        }
      }
      return copy;
    });
  }
  return objects;
}

export function renderKustomization(dir: string): K8sObject[] {
  return renderDir(dir, new Set());
}
