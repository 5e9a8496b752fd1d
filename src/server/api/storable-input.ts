// What PostgreSQL cannot store, found before it gets there: text with NUL (text columns refuse 0x00) or with a
// lone surrogate (jsonb refuses \udXXX without its pair; text would silently turn it into U+FFFD), and dates a
// timestamp cannot hold (4713 BC–294276 AD, while a JS Date reaches 271821 BC): inputs take the four-digit years.
// Found by the procedure fuzzer (issue #23): each was an INTERNAL_SERVER_ERROR from the database.
import { z } from "zod";

export const STORABLE_DATE_MIN = new Date("0001-01-01T00:00:00.000Z");
export const STORABLE_DATE_MAX = new Date("9999-12-31T23:59:59.999Z");
const dateMessage = "must be between 0001-01-01 and 9999-12-31";

/** A Date a timestamp column can hold and compare with (z.date() takes any Date from year −271821 to 275760). */
export const storableDate = () => z.date().min(STORABLE_DATE_MIN, dateMessage).max(STORABLE_DATE_MAX, dateMessage);

export interface UnstorableText {
  path: string;
  problem: string;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one (String#isWellFormed is ES2024).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function textProblem(text: string): string | undefined {
  const nul = text.indexOf("\u0000");
  if (nul >= 0) return `contains a NUL character (at ${nul})`;
  if (LONE_SURROGATE.test(text)) return "is not well-formed Unicode (a lone surrogate)";
  return undefined;
}

/**
 * The first string (value or object key) anywhere in `value` that PostgreSQL cannot store, with its path
 * (e.g. "input.checks.2.message"). Iterative and cycle-safe, so deep or self-referencing input cannot overflow it.
 */
export function findUnstorableText(value: unknown, root = "input"): UnstorableText | undefined {
  const stack: Array<[unknown, string]> = [[value, root]];
  const seen = new Set<object>();
  while (stack.length) {
    const [current, path] = stack.pop()!;
    if (typeof current === "string") {
      const problem = textProblem(current);
      if (problem) return { path, problem };
      continue;
    }
    if (typeof current !== "object" || current === null || seen.has(current)) continue;
    seen.add(current);
    if (current instanceof Map) {
      for (const [k, v] of current) stack.push([k, `${path}.(key)`], [v, `${path}.${String(k)}`]);
    } else if (current instanceof Set) {
      let i = 0;
      for (const v of current) stack.push([v, `${path}.${i++}`]);
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], `${path}.${i}`]);
    } else if (!(current instanceof Date)) {
      for (const key of Object.keys(current).reverse()) {
        const problem = textProblem(key);
        if (problem) return { path: `${path}.${JSON.stringify(key)}`, problem: `has a key that ${problem}` };
        stack.push([(current as Record<string, unknown>)[key], `${path}.${key}`]);
      }
    }
  }
  return undefined;
}
