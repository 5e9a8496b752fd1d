// The part of Kubernetes' strategic merge patch that Packrat's overlays use: maps merge recursively, null deletes a
// key, and lists merge element by element on the API's patch merge key where it has one (containers and env by
// name, volumeMounts by mountPath, container ports by containerPort, Service ports by port; in kustomize's order,
// checked against `kubectl kustomize` 5.5); other lists are replaced whole, as for lists without a merge key
// (e.g. NetworkPolicy rules, tolerations).
import { KustomizeError } from "./errors";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The merge key of a list field, decided by its name and (for `ports`) by what its elements carry. */
export function mergeKeyFor(field: string, elements: readonly Json[]): string | undefined {
  switch (field) {
    case "containers":
    case "initContainers":
    case "ephemeralContainers":
    case "env":
    case "volumes":
    case "imagePullSecrets":
      return "name";
    case "volumeMounts":
      return "mountPath";
    case "ports":
      if (elements.every((e) => isObject(e) && "containerPort" in e)) return "containerPort";
      if (elements.every((e) => isObject(e) && "port" in e)) return "port";
      return undefined;
    default:
      return undefined;
  }
}

/** Keyed lists come out as kustomize writes them: the patch's elements in its order (merged into the base's element
 *  of the same key), then the base's elements the patch does not name, in their order. */
function mergeList(field: string, base: Json[], patch: Json[], path: string): Json[] {
  const key = mergeKeyFor(field, [...base, ...patch]);
  if (!key) return structuredClone(patch);
  const named = new Set<Json>();
  const merged: Json[] = [];
  for (const element of patch) {
    if (!isObject(element) || !(key in element))
      throw new KustomizeError("invalid", path, `every element needs its merge key "${key}"`);
    named.add(element[key]!);
    const existing = base.find((e) => isObject(e) && e[key] === element[key]);
    merged.push(
      existing
        ? mergeJson(existing as JsonObject, element, `${path}[${key}=${String(element[key])}]`)
        : structuredClone(element),
    );
  }
  for (const element of base)
    if (!(isObject(element) && named.has(element[key]!))) merged.push(structuredClone(element));
  return merged;
}

/** Merges `patch` into a copy of `base` (neither is changed). */
export function mergeObjects(base: object, patch: object, path = ""): Record<string, unknown> {
  return mergeJson(base as JsonObject, patch as JsonObject, path);
}

function mergeJson(base: JsonObject, patch: JsonObject, path: string): JsonObject {
  const result: JsonObject = structuredClone(base);
  for (const [key, value] of Object.entries(patch)) {
    const at = path ? `${path}.${key}` : key;
    if (key.startsWith("$"))
      throw new KustomizeError(
        "unsupported",
        at,
        "strategic merge directives ($patch, $retainKeys, …) are not supported",
      );
    if (value === null) {
      delete result[key];
      continue;
    }
    const existing = result[key];
    if (isObject(value) && isObject(existing)) result[key] = mergeJson(existing, value, at);
    else if (Array.isArray(value) && Array.isArray(existing)) result[key] = mergeList(key, existing, value, at);
    else result[key] = structuredClone(value);
  }
  return result;
}
