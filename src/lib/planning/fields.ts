/**
 * Planner form fields: what each input accepts, and the validation that turns the text a user typed (or a URL
 * carried) into numbers. The raw text is the state; numbers exist only when they validate, so a planner never
 * computes on, or shows, NaN. Messages name the field and its unit so they can sit next to the input.
 */
import { z } from "zod";

export interface NumberFieldSpec {
  kind: "number";
  label: string;
  /** Shown beside the input and in messages; "" for a pure count or ratio. */
  unit: string;
  default: string;
  min?: number;
  /** The minimum itself is allowed (≥) unless this is false (>). */
  minInclusive?: boolean;
  max?: number;
  maxInclusive?: boolean;
  integer?: boolean;
  /** Empty text is allowed and means "not given". */
  optional?: boolean;
  help?: string;
}

export interface ChoiceFieldSpec {
  kind: "choice";
  label: string;
  options: readonly { value: string; label: string }[];
  default: string;
  help?: string;
}

/** Comma-separated numbers, e.g. candidate windows "0, 2, 5, 10". */
export interface ListFieldSpec {
  kind: "list";
  label: string;
  unit: string;
  default: string;
  min?: number;
  minInclusive?: boolean;
  integer?: boolean;
  minItems?: number;
  maxItems?: number;
  help?: string;
}

/** Comma-separated "x:y" pairs, e.g. profiled "batch:ms" points "1:3.53, 4:3.63". */
export interface PairsFieldSpec {
  kind: "pairs";
  label: string;
  unit: string;
  default: string;
  /** What each side is, for messages: ["batch", "ms"]. */
  names: readonly [string, string];
  minItems?: number;
  maxItems?: number;
  help?: string;
}

export type FieldSpec = NumberFieldSpec | ChoiceFieldSpec | ListFieldSpec | PairsFieldSpec;
export type FormSpec = Record<string, FieldSpec>;

export type RawState<S extends FormSpec> = { [K in keyof S]: string };

type ValueOf<F extends FieldSpec> = F extends { kind: "pairs" }
  ? [number, number][]
  : F extends { kind: "list" }
    ? number[]
    : F extends { kind: "choice"; options: readonly { value: infer V }[] }
      ? V
      : F extends { kind: "number"; optional: true }
        ? number | undefined
        : number;

export type FormValues<S extends FormSpec> = { [K in keyof S]: ValueOf<S[K]> };

export interface FormValidation<S extends FormSpec> {
  ok: boolean;
  /** Only the fields that validated. */
  values: Partial<FormValues<S>>;
  /** One message per invalid field. */
  errors: Partial<Record<keyof S, string>>;
}

const NUMBER_TEXT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function unitSuffix(unit: string): string {
  return unit === "" ? "" : ` ${unit}`;
}

/** Number text as people type it: thousands separators and surrounding blanks are fine; "1e3" is too. */
function readNumber(text: string): number | null {
  const compact = text
    .trim()
    .replace(/,(?=\d{3}(\D|$))/g, "")
    .replace(/_/g, "");
  if (!NUMBER_TEXT.test(compact)) return null;
  const value = Number(compact);
  return Number.isFinite(value) ? value : null;
}

interface Bounds {
  label: string;
  unit: string;
  min?: number;
  minInclusive?: boolean;
  max?: number;
  maxInclusive?: boolean;
  integer?: boolean;
}

/** The first rule a number breaks, as a sentence; null when it keeps them all. */
function boundsMessage(bounds: Bounds, value: number, what = bounds.label): string | null {
  const u = unitSuffix(bounds.unit);
  if (bounds.integer && !Number.isInteger(value)) return `${what} must be a whole number`;
  if (bounds.min !== undefined) {
    const inclusive = bounds.minInclusive !== false;
    if (inclusive ? value < bounds.min : value <= bounds.min)
      return `${what} must be ${inclusive ? "≥" : ">"} ${bounds.min}${u}`;
  }
  if (bounds.max !== undefined) {
    const inclusive = bounds.maxInclusive !== false;
    if (inclusive ? value > bounds.max : value >= bounds.max)
      return `${what} must be ${inclusive ? "≤" : "<"} ${bounds.max}${u}`;
  }
  return null;
}

function numberSchema(spec: NumberFieldSpec) {
  return z.string().transform((text, ctx): number | undefined => {
    if (text.trim() === "") {
      if (spec.optional) return undefined;
      ctx.addIssue({ code: "custom", message: `${spec.label} is required` });
      return z.NEVER;
    }
    const value = readNumber(text);
    if (value === null) {
      ctx.addIssue({
        code: "custom",
        message: `${spec.label} must be a number${spec.unit ? ` (in ${spec.unit})` : ""}`,
      });
      return z.NEVER;
    }
    const broken = boundsMessage(spec, value);
    if (broken) {
      ctx.addIssue({ code: "custom", message: broken });
      return z.NEVER;
    }
    return value;
  });
}

function choiceSchema(spec: ChoiceFieldSpec) {
  const values = spec.options.map((o) => o.value);
  return z.string().refine((v) => values.includes(v), { message: `${spec.label}: choose one of ${values.join(", ")}` });
}

function itemsMessage(label: string, count: number, minItems = 1, maxItems?: number): string | null {
  if (count < minItems) return `${label} needs at least ${minItems} ${minItems === 1 ? "value" : "values"}`;
  if (maxItems !== undefined && count > maxItems) return `${label} takes at most ${maxItems} values, got ${count}`;
  return null;
}

function splitItems(text: string): string[] {
  return text
    .split(/[,;\n]+/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function listSchema(spec: ListFieldSpec) {
  return z.string().transform((text, ctx): number[] => {
    const items = splitItems(text);
    const values: number[] = [];
    for (const [i, item] of items.entries()) {
      const value = readNumber(item);
      const what = `${spec.label}: value ${i + 1} ("${item}")`;
      const broken = value === null ? `${what} is not a number` : boundsMessage(spec, value, what);
      if (broken || value === null) {
        ctx.addIssue({ code: "custom", message: broken ?? what });
        return z.NEVER;
      }
      values.push(value);
    }
    const count = itemsMessage(spec.label, values.length, spec.minItems, spec.maxItems);
    if (count) {
      ctx.addIssue({ code: "custom", message: count });
      return z.NEVER;
    }
    return values;
  });
}

function pairsSchema(spec: PairsFieldSpec) {
  const [xName, yName] = spec.names;
  return z.string().transform((text, ctx): [number, number][] => {
    const items = splitItems(text);
    const pairs: [number, number][] = [];
    for (const [i, item] of items.entries()) {
      const parts = item.split(/\s*[:=]\s*|\s+/);
      const x = parts.length === 2 ? readNumber(parts[0] ?? "") : null;
      const y = parts.length === 2 ? readNumber(parts[1] ?? "") : null;
      if (x === null || y === null || !(x > 0) || !(y > 0)) {
        ctx.addIssue({
          code: "custom",
          message: `${spec.label}: entry ${i + 1} ("${item}") must be ${xName}:${yName} with both > 0`,
        });
        return z.NEVER;
      }
      pairs.push([x, y]);
    }
    const count = itemsMessage(spec.label, pairs.length, spec.minItems, spec.maxItems);
    if (count) {
      ctx.addIssue({ code: "custom", message: count });
      return z.NEVER;
    }
    return pairs;
  });
}

export function fieldSchema(spec: FieldSpec) {
  switch (spec.kind) {
    case "number":
      return numberSchema(spec);
    case "choice":
      return choiceSchema(spec);
    case "list":
      return listSchema(spec);
    case "pairs":
      return pairsSchema(spec);
  }
}

export type FieldResult<V> = { ok: true; value: V } | { ok: false; message: string };

export function validateField<F extends FieldSpec>(spec: F, raw: string): FieldResult<ValueOf<F>> {
  const result = fieldSchema(spec).safeParse(raw);
  if (result.success) return { ok: true, value: result.data as ValueOf<F> };
  return { ok: false, message: result.error.issues[0]?.message ?? `${spec.label} is not valid` };
}

export function validateForm<S extends FormSpec>(spec: S, raw: RawState<S>): FormValidation<S> {
  const values: Partial<FormValues<S>> = {};
  const errors: Partial<Record<keyof S, string>> = {};
  for (const key of Object.keys(spec) as (keyof S & string)[]) {
    const field = spec[key] as S[typeof key];
    const result = validateField(field, raw[key] ?? field.default);
    if (result.ok) values[key] = result.value as FormValues<S>[typeof key];
    else errors[key] = result.message;
  }
  return { ok: Object.keys(errors).length === 0, values, errors };
}

export function defaultState<S extends FormSpec>(spec: S): RawState<S> {
  const state = {} as RawState<S>;
  for (const key of Object.keys(spec) as (keyof S)[]) state[key] = spec[key]!.default;
  return state;
}

/**
 * The values a computation needs, or null when any is missing (invalid): `need(v, ["a", "b"])`. Keeps each chart
 * independent, so one bad input blanks only what depends on it.
 */
export function need<S extends FormSpec, K extends keyof S>(
  values: Partial<FormValues<S>>,
  keys: readonly K[],
): Pick<FormValues<S>, K> | null {
  const picked = {} as Pick<FormValues<S>, K>;
  for (const key of keys) {
    if (!(key in values)) return null;
    picked[key] = values[key] as FormValues<S>[K];
  }
  return picked;
}
