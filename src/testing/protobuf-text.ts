// A protobuf text-format reader for tests: parses a .pbtxt into plain objects and checks every field name, enum
// name and scalar type against a .proto schema loaded with protobufjs. No npm package parses the text format
// offline here, so the grammar is this file's; the schema is the target's own (field names, types, enums).
import protobuf from "protobufjs";

type Value = string | number | boolean | Record<string, unknown> | Value[];

function tokenize(text: string): string[] {
  const tokens: string[] = [];
  const re = /\s+|#[^\n]*|("(?:[^"\\]|\\.)*")|([{}[\]:,])|([^\s{}[\]:,"#]+)/gy;
  let match: RegExpExecArray | null;
  while (re.lastIndex < text.length && (match = re.exec(text))) {
    const token = match[1] ?? match[2] ?? match[3];
    if (token !== undefined) tokens.push(token);
  }
  if (re.lastIndex < text.length) throw new Error(`pbtxt: cannot read at offset ${re.lastIndex}`);
  return tokens;
}

/** Parses text format into { field: value | value[] }; repeated fields (and `[...]` lists) become arrays. */
export function parseProtobufText(text: string): Record<string, unknown> {
  const tokens = tokenize(text);
  let i = 0;
  const peek = () => tokens[i];
  const next = () => {
    const t = tokens[i++];
    if (t === undefined) throw new Error("pbtxt: unexpected end");
    return t;
  };
  const scalar = (t: string): Value =>
    t.startsWith('"')
      ? (JSON.parse(t) as string)
      : /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t)
        ? Number(t)
        : t === "true"
          ? true
          : t === "false"
            ? false
            : t;
  const message = (end: string | undefined): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    while (peek() !== end) {
      const name = next();
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`pbtxt: expected a field name, got ${name}`);
      if (peek() === ":") next();
      const value = item();
      const values = Array.isArray(value) ? value : [value];
      const before = out[name] as Value | undefined;
      out[name] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), ...values];
      if (peek() === "," || peek() === ";") next();
      if (end === undefined && peek() === undefined) break;
    }
    if (end !== undefined) next();
    return out;
  };
  const item = (): Value => {
    const t = next();
    if (t === "{") return message("}");
    if (t === "[") {
      const list: Value[] = [];
      while (peek() !== "]") {
        list.push(item());
        if (peek() === ",") next();
      }
      next();
      return list;
    }
    return scalar(t);
  };
  return tokens.length === 0 ? {} : message(undefined);
}

const INTEGER = new Set([
  "int32",
  "int64",
  "uint32",
  "uint64",
  "sint32",
  "sint64",
  "fixed32",
  "fixed64",
  "sfixed32",
  "sfixed64",
]);

/** Every problem of `value` as a `typeName` message of `schema` (a .proto source): unknown fields, bad enums, bad scalars. */
export function protobufTextProblems(schema: string, typeName: string, value: Record<string, unknown>): string[] {
  const root = protobuf.parse(schema, { keepCase: true }).root;
  root.resolveAll();
  const problems: string[] = [];
  const check = (type: protobuf.Type, object: Record<string, unknown>, where: string) => {
    for (const [key, raw] of Object.entries(object)) {
      const field = type.fields[key];
      if (!field) {
        problems.push(`${where}${key}: no such field in ${type.name}`);
        continue;
      }
      const values = Array.isArray(raw) ? raw : [raw];
      if (Array.isArray(raw) && !field.repeated && !field.map) problems.push(`${where}${key}: not a repeated field`);
      for (const v of values) {
        if (field instanceof protobuf.MapField) {
          const entry = v as Record<string, unknown>;
          if (typeof entry.key !== "string") problems.push(`${where}${key}: a map entry needs a string key`);
          if (field.resolvedType instanceof protobuf.Type)
            check(
              field.resolvedType,
              (entry.value ?? {}) as Record<string, unknown>,
              `${where}${key}[${String(entry.key)}].`,
            );
          for (const extra of Object.keys(entry).filter((k) => k !== "key" && k !== "value"))
            problems.push(`${where}${key}: map entry field ${extra}`);
        } else if (field.resolvedType instanceof protobuf.Type) {
          if (typeof v !== "object" || v === null) problems.push(`${where}${key}: expected a message`);
          else check(field.resolvedType, v as Record<string, unknown>, `${where}${key}.`);
        } else if (field.resolvedType instanceof protobuf.Enum) {
          if (typeof v !== "string" || !(v in field.resolvedType.values))
            problems.push(`${where}${key}: ${String(v)} is not a ${field.resolvedType.name}`);
        } else if (INTEGER.has(field.type)) {
          if (typeof v !== "number" || !Number.isInteger(v) || (field.type.startsWith("u") && v < 0))
            problems.push(`${where}${key}: ${String(v)} is not a ${field.type}`);
        } else if (field.type === "string" || field.type === "bytes") {
          if (typeof v !== "string") problems.push(`${where}${key}: expected a string`);
        } else if (field.type === "bool") {
          if (typeof v !== "boolean") problems.push(`${where}${key}: expected a bool`);
        } else if (typeof v !== "number") problems.push(`${where}${key}: expected a number`);
      }
    }
  };
  check(root.lookupType(typeName), value, "");
  return problems;
}
