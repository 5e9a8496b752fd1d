/**
 * Runs a planning model on validated inputs and turns its typed refusal (PlanningInputError, which names the
 * parameter) into a message for the form field that parameter came from. A model that refuses shows why, next to
 * the input to change, instead of a blank chart or a NaN.
 */
import { PlanningInputError } from "@/core/planning/errors";

export type ModelRun<T, K extends string> =
  | { ok: true; value: T }
  | { ok: false; message: string; /** The form field to show it beside, when the parameter maps to one. */ field?: K };

/**
 * `parameterToField` maps a model's parameter names ("arrivalRatePerS", or a prefix such as "stages") to form keys.
 * The longest matching prefix wins, so "stages[3].durationMs" can map through "stages". With `fieldLabel`, a mapped
 * refusal names the field as the form does ("Arrival rate: utilization ρ = 1.05 ≥ 1 …") instead of the parameter.
 */
export function runModel<T, K extends string>(
  compute: () => T,
  parameterToField: Partial<Record<string, K>> = {},
  fieldLabel?: (field: K) => string,
): ModelRun<T, K> {
  try {
    return { ok: true, value: compute() };
  } catch (error) {
    if (error instanceof PlanningInputError) {
      const field = fieldFor(error.parameter, parameterToField);
      if (field === undefined) return { ok: false, message: error.message };
      const detail = error.message.startsWith(`${error.parameter}: `)
        ? error.message.slice(error.parameter.length + 2)
        : error.message;
      return { ok: false, message: fieldLabel ? `${fieldLabel(field)}: ${detail}` : error.message, field };
    }
    if (error instanceof RangeError || error instanceof TypeError) return { ok: false, message: error.message };
    throw error;
  }
}

function fieldFor<K extends string>(parameter: string, map: Partial<Record<string, K>>): K | undefined {
  let best: { length: number; field: K } | undefined;
  for (const [prefix, field] of Object.entries(map)) {
    if (field === undefined) continue;
    const matches = parameter === prefix || parameter.startsWith(`${prefix}.`) || parameter.startsWith(`${prefix}[`);
    if (matches && (!best || prefix.length > best.length)) best = { length: prefix.length, field };
  }
  return best?.field;
}
