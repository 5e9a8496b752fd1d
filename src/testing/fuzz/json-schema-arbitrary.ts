// JSON Schema (draft 2020-12, as zod 4's z.toJSONSchema writes it) → fast-check arbitrary of values that satisfy
// it, chosen to be hostile within the rules: strings of every Unicode class at their length limits, numbers at
// their bounds, extra keys named __proto__ or constructor on open objects. A keyword it does not understand is an
// error naming the keyword, never silently ignored (that would produce values the schema rejects).
import fc from "fast-check";

export type JsonSchema = boolean | { [keyword: string]: unknown };

export class SchemaConversionError extends Error {
  override readonly name = "SchemaConversionError";
  constructor(
    readonly code: "unsupported_keyword" | "unsupported_format" | "unresolved_ref" | "unsatisfiable",
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}

export interface SchemaArbitraryOptions {
  /** Cap on generated array lengths (a schema's maxItems above it is lowered to it, never below minItems). */
  maxArrayLength?: number;
  /** Cap on generated string lengths for strings without a pattern (maxLength above it is lowered to it). */
  maxStringLength?: number;
  /** Extra keys (hostile names, any JSON values) on objects whose schema allows additional properties. */
  extraKeys?: boolean;
  /** A custom arbitrary for the string at `path` (e.g. ids drawn from a database); undefined: the default. */
  stringAt?: (path: readonly string[], schema: Record<string, unknown>) => fc.Arbitrary<string> | undefined;
}

// Annotations and keywords that do not constrain a value (or are handled by their parent).
const IGNORED = new Set([
  "$schema",
  "$id",
  "$comment",
  "title",
  "description",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$defs",
  "definitions",
  "id",
]);
const HANDLED = new Set([
  "type",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "$ref",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "x-js-type",
]);
const HOSTILE_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "$where",
  "",
  " ",
  "\u0000",
  "\u202e",
  "🦀",
  "a.b",
  "a[0]",
];
const HOSTILE_STRINGS = [
  "' OR '1'='1",
  '\'; DROP TABLE "user"; --',
  "\u0000",
  "%00",
  "../../../../etc/passwd",
  "<script>alert(1)</script>",
  "${jndi:ldap://x}",
  "{{7*7}}",
  "\ud800",
  "\udfff",
  "\u202e",
  "\ufeff",
  "null",
  "undefined",
  "NaN",
  "__proto__",
  "constructor",
  " ",
  "\t\n\r",
  "🦀👩‍👩‍👧",
  "é",
  "e\u0301",
];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Length in code points, as JSON Schema and zod 4 count it (a lone surrogate is one). */
export const codePoints = (text: string): number => Array.from(text).length;

/** Pads (with "a") or cuts a string to a length in [min, max] code points. */
function fit(text: string, min: number, max: number): string {
  const points = Array.from(text);
  const cut = points.length > max ? points.slice(0, max) : points;
  return cut.join("") + "a".repeat(Math.max(0, min - cut.length));
}

function hostileString(min: number, max: number): fc.Arbitrary<string> {
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: Math.min(max, 64) }) },
      { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: Math.min(max, 64) }) },
      { weight: 2, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
      // At the limits: exactly min and exactly max units long.
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(min, max)
          .chain((n) => fc.string({ unit: "binary-ascii", minLength: n, maxLength: n })),
      },
    )
    .map((s) => fit(s, min, max));
}

function numberBound(value: unknown, keyword: string, path: readonly string[]): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value))
    throw new SchemaConversionError(
      "unsatisfiable",
      `${path.join(".") || "(root)"}.${keyword}`,
      `must be a finite number, got ${String(value)}`,
    );
  return value;
}

export function arbitraryFromJsonSchema(root: JsonSchema, options: SchemaArbitraryOptions = {}): fc.Arbitrary<unknown> {
  const maxArray = options.maxArrayLength ?? 16;
  const maxString = options.maxStringLength ?? 256;
  const extraKeys = options.extraKeys ?? true;

  function resolve(ref: string, path: readonly string[]): JsonSchema {
    const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
    const defs = isObject(root) ? (root[match?.[1] ?? "$defs"] as Record<string, JsonSchema> | undefined) : undefined;
    const target = match ? defs?.[decodeURIComponent(match[2]!)] : ref === "#" ? root : undefined;
    if (target === undefined)
      throw new SchemaConversionError("unresolved_ref", `${path.join(".") || "(root)"}.$ref`, `cannot resolve ${ref}`);
    return target;
  }

  function convert(schema: JsonSchema, path: readonly string[], depth: number): fc.Arbitrary<unknown> {
    const where = path.join(".") || "(root)";
    if (schema === true) return fc.jsonValue({ maxDepth: 2 });
    if (schema === false) throw new SchemaConversionError("unsatisfiable", where, "the schema false admits no value");
    if (depth > 32)
      throw new SchemaConversionError("unsatisfiable", where, "schema nests deeper than 32 levels (a recursive $ref?)");
    for (const keyword of Object.keys(schema)) {
      if (!HANDLED.has(keyword) && !IGNORED.has(keyword))
        throw new SchemaConversionError(
          "unsupported_keyword",
          `${where}.${keyword}`,
          `the converter does not support "${keyword}"`,
        );
    }
    if (typeof schema.$ref === "string") return convert(resolve(schema.$ref, path), path, depth + 1);
    if ("const" in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) {
      if (schema.enum.length === 0)
        throw new SchemaConversionError("unsatisfiable", `${where}.enum`, "an empty enum admits no value");
      return fc.constantFrom(...(schema.enum as unknown[]));
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      const branches = schema[key];
      if (Array.isArray(branches)) {
        // Keywords beside anyOf (zod puts none there but annotations) would have to hold in every branch.
        return fc.oneof(
          ...branches.map((b, i) =>
            convert({ ...omit(schema, key), ...(b as object) }, [...path, `${key}[${i}]`], depth + 1),
          ),
        );
      }
    }
    if (Array.isArray(schema.allOf)) return convert(mergeAll(schema, where), path, depth + 1);
    if (schema["x-js-type"] === "date")
      return fc.date({ noInvalidDate: true, min: new Date(-8.64e15), max: new Date(8.64e15) });

    const types = Array.isArray(schema.type)
      ? (schema.type as string[])
      : typeof schema.type === "string"
        ? [schema.type]
        : undefined;
    if (!types) {
      // No type: anything JSON, unless structural keywords say which kind.
      if (schema.properties || schema.additionalProperties !== undefined)
        return convert({ ...schema, type: "object" }, path, depth);
      if (schema.items !== undefined || schema.prefixItems) return convert({ ...schema, type: "array" }, path, depth);
      return fc.jsonValue({ maxDepth: 2 });
    }
    if (types.length > 1) return fc.oneof(...types.map((t) => convert({ ...schema, type: t }, path, depth)));
    switch (types[0]) {
      case "null":
        return fc.constant(null);
      case "boolean":
        return fc.boolean();
      case "integer":
        return integer(schema, path);
      case "number":
        return number(schema, path);
      case "string":
        return string(schema, path);
      case "array":
        return array(schema, path, depth);
      case "object":
        return object(schema, path, depth);
      default:
        throw new SchemaConversionError("unsupported_keyword", `${where}.type`, `unknown type "${String(types[0])}"`);
    }
  }

  function integer(schema: Record<string, unknown>, path: readonly string[]): fc.Arbitrary<number> {
    const where = path.join(".") || "(root)";
    const lowIncl = numberBound(schema.minimum, "minimum", path);
    const lowExcl = numberBound(schema.exclusiveMinimum, "exclusiveMinimum", path);
    const highIncl = numberBound(schema.maximum, "maximum", path);
    const highExcl = numberBound(schema.exclusiveMaximum, "exclusiveMaximum", path);
    const low = Math.max(
      lowIncl !== undefined ? Math.ceil(lowIncl) : -Number.MAX_SAFE_INTEGER,
      lowExcl !== undefined ? Math.floor(lowExcl) + 1 : -Number.MAX_SAFE_INTEGER,
    );
    const high = Math.min(
      highIncl !== undefined ? Math.floor(highIncl) : Number.MAX_SAFE_INTEGER,
      highExcl !== undefined ? Math.ceil(highExcl) - 1 : Number.MAX_SAFE_INTEGER,
    );
    const step = numberBound(schema.multipleOf, "multipleOf", path) ?? 1;
    if (!Number.isInteger(step) || step <= 0)
      throw new SchemaConversionError(
        "unsupported_keyword",
        `${where}.multipleOf`,
        `an integer multipleOf must be a positive integer, got ${step}`,
      );
    const first = Math.ceil(low / step);
    const last = Math.floor(high / step);
    if (first > last)
      throw new SchemaConversionError("unsatisfiable", where, `no integer multiple of ${step} in [${low}, ${high}]`);
    // bigInt for ranges beyond 32 bits (fc.integer's limit); fast-check biases toward both ends either way. Beside
    // it, the widths of database integer columns (int2, int4, uint32) on both sides: where overflows hide.
    const edges = [
      first,
      last,
      0,
      1,
      -1,
      2 ** 15 - 1,
      2 ** 15,
      2 ** 31 - 1,
      2 ** 31,
      -(2 ** 31),
      -(2 ** 31) - 1,
      2 ** 32 - 1,
      2 ** 32,
    ].filter((k) => k >= first && k <= last);
    return fc
      .oneof(
        { weight: 4, arbitrary: fc.bigInt(BigInt(first), BigInt(last)).map((k) => Number(k)) },
        { weight: 1, arbitrary: fc.constantFrom(...new Set(edges)) },
      )
      .map((k) => k * step);
  }

  function number(schema: Record<string, unknown>, path: readonly string[]): fc.Arbitrary<number> {
    const where = path.join(".") || "(root)";
    const lowIncl = numberBound(schema.minimum, "minimum", path);
    const lowExcl = numberBound(schema.exclusiveMinimum, "exclusiveMinimum", path);
    const highIncl = numberBound(schema.maximum, "maximum", path);
    const highExcl = numberBound(schema.exclusiveMaximum, "exclusiveMaximum", path);
    if (schema.multipleOf !== undefined) return integer({ ...schema, type: "integer" }, path);
    const minExcluded = lowExcl !== undefined && (lowIncl === undefined || lowExcl >= lowIncl);
    const maxExcluded = highExcl !== undefined && (highIncl === undefined || highExcl <= highIncl);
    const min = minExcluded ? lowExcl! : (lowIncl ?? -Number.MAX_VALUE);
    const max = maxExcluded ? highExcl! : (highIncl ?? Number.MAX_VALUE);
    if (min > max || (min === max && (minExcluded || maxExcluded)))
      throw new SchemaConversionError(
        "unsatisfiable",
        where,
        `no number in ${minExcluded ? "(" : "["}${min}, ${max}${maxExcluded ? ")" : "]"}`,
      );
    return fc.double({ min, max, minExcluded, maxExcluded, noNaN: true, noDefaultInfinity: true });
  }

  function string(schema: Record<string, unknown>, path: readonly string[]): fc.Arbitrary<string> {
    const where = path.join(".") || "(root)";
    const custom = options.stringAt?.(path, schema);
    if (custom) return custom;
    const min = numberBound(schema.minLength, "minLength", path) ?? 0;
    const declaredMax = numberBound(schema.maxLength, "maxLength", path);
    if (declaredMax !== undefined && declaredMax < min)
      throw new SchemaConversionError("unsatisfiable", where, `maxLength ${declaredMax} < minLength ${min}`);
    const inLength = (s: string) => codePoints(s) >= min && (declaredMax === undefined || codePoints(s) <= declaredMax);
    if (typeof schema.pattern === "string") {
      // zod writes a pattern for every format it checks (email, uuid, cuid, datetime…): the pattern is the rule.
      return fc.stringMatching(new RegExp(schema.pattern)).filter(inLength);
    }
    if (schema.format !== undefined) {
      const byFormat: Record<string, fc.Arbitrary<string>> = {
        email: fc.emailAddress(),
        uuid: fc.uuid(),
        "date-time": fc
          .date({ noInvalidDate: true, min: new Date(0), max: new Date(4102444800000) })
          .map((d) => d.toISOString()),
        uri: fc.webUrl(),
        url: fc.webUrl(),
      };
      const arbitrary = byFormat[String(schema.format)];
      if (!arbitrary)
        throw new SchemaConversionError(
          "unsupported_format",
          `${where}.format`,
          `format "${String(schema.format)}" has no pattern and no generator`,
        );
      return arbitrary.filter(inLength);
    }
    return hostileString(min, Math.max(min, Math.min(declaredMax ?? maxString, maxString)));
  }

  function array(schema: Record<string, unknown>, path: readonly string[], depth: number): fc.Arbitrary<unknown[]> {
    const where = path.join(".") || "(root)";
    const minItems = numberBound(schema.minItems, "minItems", path) ?? 0;
    const declaredMax = numberBound(schema.maxItems, "maxItems", path);
    if (declaredMax !== undefined && declaredMax < minItems)
      throw new SchemaConversionError("unsatisfiable", where, `maxItems ${declaredMax} < minItems ${minItems}`);
    const prefix = Array.isArray(schema.prefixItems)
      ? schema.prefixItems.map((s, i) => convert(s as JsonSchema, [...path, String(i)], depth + 1))
      : [];
    const rest =
      schema.items === false ? undefined : convert((schema.items ?? true) as JsonSchema, [...path, "[]"], depth + 1);
    const maxTotal = Math.max(minItems, Math.min(declaredMax ?? maxArray, maxArray + prefix.length));
    if (prefix.length > maxTotal || (!rest && prefix.length < minItems))
      throw new SchemaConversionError("unsatisfiable", where, "prefixItems do not fit minItems/maxItems");
    const tail = rest
      ? schema.uniqueItems === true
        ? fc.uniqueArray(rest, {
            minLength: Math.max(0, minItems - prefix.length),
            maxLength: maxTotal - prefix.length,
            selector: (v) => JSON.stringify(v),
          })
        : fc.array(rest, { minLength: Math.max(0, minItems - prefix.length), maxLength: maxTotal - prefix.length })
      : fc.constant([] as unknown[]);
    return fc.tuple(fc.tuple(...prefix), tail).map(([head, more]) => [...head, ...more]);
  }

  function object(
    schema: Record<string, unknown>,
    path: readonly string[],
    depth: number,
  ): fc.Arbitrary<Record<string, unknown>> {
    const properties = (isObject(schema.properties) ? schema.properties : {}) as Record<string, JsonSchema>;
    const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [key, sub] of Object.entries(properties)) model[key] = convert(sub, [...path, key], depth + 1);
    for (const key of required) if (!Object.hasOwn(model, key)) model[key] = fc.jsonValue({ maxDepth: 1 });
    const known = fc.record(model, { requiredKeys: required, noNullPrototype: true });
    const additional = schema.additionalProperties;
    if (additional === false || (additional === undefined && !extraKeys)) return known;
    const keyArbitrary =
      schema.propertyNames !== undefined
        ? (convert(schema.propertyNames as JsonSchema, [...path, "(key)"], depth + 1) as fc.Arbitrary<string>)
        : fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ unit: "grapheme", maxLength: 16 }));
    const valueArbitrary =
      additional === undefined || additional === true
        ? fc.jsonValue({ maxDepth: 2 })
        : convert(additional as JsonSchema, [...path, "(value)"], depth + 1);
    const extra = fc.array(
      fc.tuple(
        keyArbitrary.filter((k) => !Object.hasOwn(properties, k)),
        valueArbitrary,
      ),
      { maxLength: 4 },
    );
    return fc.tuple(known, extra).map(([base, pairs]) => {
      const out = { ...base };
      // defineProperty: an own "__proto__" key, as JSON.parse makes it, not a prototype change.
      for (const [k, v] of pairs)
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
      return out;
    });
  }

  return convert(root, [], 0);
}

function omit(schema: Record<string, unknown>, key: string): Record<string, unknown> {
  const { [key]: _dropped, ...rest } = schema;
  return rest;
}

/** allOf of object schemas: properties and required merged (what zod's intersections of objects produce). */
function mergeAll(schema: Record<string, unknown>, where: string): Record<string, unknown> {
  const parts = [omit(schema, "allOf"), ...(schema.allOf as unknown[])];
  const merged: Record<string, unknown> = { type: "object", properties: {}, required: [] };
  for (const part of parts) {
    if (!isObject(part))
      throw new SchemaConversionError("unsupported_keyword", `${where}.allOf`, "only object schemas can be merged");
    const type = part.type ?? "object";
    if (type !== "object")
      throw new SchemaConversionError(
        "unsupported_keyword",
        `${where}.allOf`,
        `only object schemas can be merged, not ${String(type)}`,
      );
    for (const key of Object.keys(part)) {
      if (!["type", "properties", "required", "additionalProperties"].includes(key) && !IGNORED.has(key)) {
        throw new SchemaConversionError(
          "unsupported_keyword",
          `${where}.allOf.${key}`,
          `"${key}" inside allOf is not supported`,
        );
      }
    }
    Object.assign(merged.properties as object, part.properties ?? {});
    (merged.required as string[]).push(...((part.required as string[] | undefined) ?? []));
    if (part.additionalProperties === false) merged.additionalProperties = false;
  }
  return merged;
}
