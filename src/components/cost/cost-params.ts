// The cost page's state in its URL (shareable: period, filters, entered peaks, headroom, N+k, break-even), parsed
// leniently from search params (a bad value falls back to its default and is named) and validated by the schema
// the tRPC procedure uses (src/contracts/cost-report.ts).
import {
  costReportInputSchema,
  DEFAULT_HEADROOM_MULTIPLIER,
  DEFAULT_REDUNDANCY_K,
  type CostReportInput,
} from "@/contracts/cost-report";

/** The report's one form: the filters, every card's peak rate and the break-even inputs submit together. */
export const COST_FORM_ID = "cost-form";

type Search = Record<string, string | string[] | undefined>;
const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() || undefined;

/** Search params → report input; `problems` names each value that was ignored. */
export function parseCostParams(search: Search): { input: CostReportInput; problems: string[] } {
  const problems: string[] = [];
  const number = (key: string, label: string): number | undefined => {
    const text = first(search[key]);
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isFinite(n)) {
      problems.push(`${label}: "${text}" is not a number`);
      return undefined;
    }
    return n;
  };
  const peakPerS: Record<string, number> = {};
  for (const key of Object.keys(search).sort()) {
    if (!key.startsWith("peak.")) continue;
    const n = number(key, `peak rate`);
    if (n !== undefined) peakPerS[key.slice(5)] = n;
  }
  const beModel = first(search.beModel);
  const beA = first(search.beA);
  const beB = first(search.beB);
  const raw = {
    period: first(search.period),
    modelId: first(search.model),
    hardwareClass: first(search.hw),
    peakPerS,
    headroomMultiplier: number("headroom", "headroom"),
    redundancyK: number("k", "N+k"),
    breakEven:
      beModel && beA && beB
        ? {
            modelId: beModel,
            classA: beA,
            classB: beB,
            capacityA: number("beCapA", "capacity A"),
            capacityB: number("beCapB", "capacity B"),
          }
        : undefined,
  };
  const parsed = costReportInputSchema.safeParse(raw);
  if (parsed.success) return { input: parsed.data, problems };
  // Drop each field zod names and try again: the page still renders, and says what it ignored.
  const cleaned: Record<string, unknown> = { ...raw };
  for (const issue of parsed.error.issues) {
    const field = String(issue.path[0]);
    problems.push(`${field}: ${issue.message}`);
    if (field === "peakPerS" && issue.path[1] !== undefined) delete peakPerS[String(issue.path[1])];
    else delete cleaned[field];
  }
  return { input: costReportInputSchema.parse(cleaned), problems };
}

/** Report input → search params, defaults left out, so the URL is as short as the state allows. */
export function serializeCostParams(input: Partial<CostReportInput>): string {
  const q = new URLSearchParams();
  if (input.period && input.period !== "7d") q.set("period", input.period);
  if (input.modelId) q.set("model", input.modelId);
  if (input.hardwareClass) q.set("hw", input.hardwareClass);
  for (const [id, v] of Object.entries(input.peakPerS ?? {}).sort()) q.set(`peak.${id}`, String(v));
  if (input.headroomMultiplier !== undefined && input.headroomMultiplier !== DEFAULT_HEADROOM_MULTIPLIER)
    q.set("headroom", String(input.headroomMultiplier));
  if (input.redundancyK !== undefined && input.redundancyK !== DEFAULT_REDUNDANCY_K)
    q.set("k", String(input.redundancyK));
  if (input.breakEven) {
    q.set("beModel", input.breakEven.modelId);
    q.set("beA", input.breakEven.classA);
    q.set("beB", input.breakEven.classB);
    if (input.breakEven.capacityA !== undefined) q.set("beCapA", String(input.breakEven.capacityA));
    if (input.breakEven.capacityB !== undefined) q.set("beCapB", String(input.breakEven.capacityB));
  }
  return q.toString();
}
