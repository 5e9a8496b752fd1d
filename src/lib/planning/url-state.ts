/**
 * Planner state in the URL, so a view can be shared: the raw text of every field, under the field's key. Parsing
 * is forgiving (unknown keys are ignored, a missing or oversized value falls back to the default, a repeated key
 * takes its first value) and never throws; validation of the text happens in the form, so a shared link with a bad
 * value shows the same message the sender saw.
 */
import { z } from "zod";
import { defaultState, type FormSpec, type RawState } from "./fields";

/** Longer values are not planner input (a list of candidates fits easily); they fall back to the default. */
export const MAX_URL_VALUE_LENGTH = 400;

export type SearchParamsLike = URLSearchParams | Record<string, string | string[] | undefined>;

const urlValue = z
  .preprocess((v) => (Array.isArray(v) ? v[0] : v), z.string().max(MAX_URL_VALUE_LENGTH).optional())
  .catch(undefined);

function toRecord(params: SearchParamsLike): Record<string, unknown> {
  if (params instanceof URLSearchParams) {
    const out: Record<string, string> = {};
    for (const [key, value] of params) if (!(key in out)) out[key] = value;
    return out;
  }
  return params;
}

export function urlStateSchema<S extends FormSpec>(spec: S) {
  const shape = Object.fromEntries(Object.keys(spec).map((key) => [key, urlValue])) as Record<keyof S, typeof urlValue>;
  return z.object(shape);
}

export function parseUrlState<S extends FormSpec>(spec: S, params: SearchParamsLike): RawState<S> {
  const parsed = urlStateSchema(spec).parse(toRecord(params)) as Partial<Record<keyof S, string | undefined>>;
  const state = defaultState(spec);
  for (const key of Object.keys(spec) as (keyof S)[]) {
    const value = parsed[key];
    if (value !== undefined) state[key] = value;
  }
  return state;
}

/** Every field in spec order, defaults included, so a shared link keeps its meaning if defaults change. */
export function serializeUrlState<S extends FormSpec>(spec: S, state: RawState<S>): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(spec) as (keyof S & string)[]) params.set(key, state[key] ?? spec[key]!.default);
  return params.toString();
}
