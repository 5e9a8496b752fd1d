// Checks a bench/results/NAME.json as bench/run.ts writes it (the BenchResultFile shape), and for the Packrat
// benchmark that every model it ran covers every batch size. Returns the problems found; none means it is sound.

const isFiniteNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Problems with the generic shape: name, date, machine, figures (every number finite), tables, notes. */
export function checkBenchResult(json: unknown, expectedName?: string): string[] {
  const problems: string[] = [];
  if (!isObject(json)) return ["the result is not a JSON object"];
  if (typeof json.name !== "string" || json.name === "") problems.push("name: missing");
  else if (expectedName !== undefined && json.name !== expectedName)
    problems.push(`name: "${json.name}", expected "${expectedName}"`);
  if (typeof json.date !== "string" || Number.isNaN(Date.parse(json.date))) problems.push("date: not an ISO date");
  if (typeof json.quick !== "boolean") problems.push("quick: not a boolean");
  if (!isFiniteNumber(json.durationS) || json.durationS < 0) problems.push("durationS: not a finite number ≥ 0");
  if (!isObject(json.machine) || !isFiniteNumber(json.machine.logicalCpus))
    problems.push("machine: missing or without logicalCpus");
  if (!Array.isArray(json.figures) || json.figures.length === 0) {
    problems.push("figures: missing or empty");
  } else {
    json.figures.forEach((f: unknown, i: number) => {
      const at = `figures[${i}]`;
      if (!isObject(f)) return problems.push(`${at}: not an object`);
      if (typeof f.label !== "string" || f.label === "") problems.push(`${at}.label: missing`);
      const name = typeof f.label === "string" ? ` ("${f.label}")` : "";
      if (!isFiniteNumber(f.value)) problems.push(`${at}.value${name}: ${String(f.value)} is not a finite number`);
      if (typeof f.unit !== "string") problems.push(`${at}.unit${name}: missing`);
      if (f.samples !== undefined && !(Number.isInteger(f.samples) && (f.samples as number) >= 0))
        problems.push(`${at}.samples${name}: not a count`);
      if (f.spread !== undefined) {
        if (!isObject(f.spread)) problems.push(`${at}.spread${name}: not an object`);
        else
          for (const k of ["low", "high", "value"] as const) {
            if (f.spread[k] !== undefined && !isFiniteNumber(f.spread[k]))
              problems.push(`${at}.spread.${k}${name}: ${String(f.spread[k])} is not a finite number`);
          }
      }
    });
  }
  if (json.tables !== undefined) {
    if (!Array.isArray(json.tables)) problems.push("tables: not a list");
    else
      json.tables.forEach((t: unknown, i: number) => {
        const at = `tables[${i}]`;
        if (!isObject(t) || typeof t.title !== "string" || !Array.isArray(t.columns) || !Array.isArray(t.rows))
          return problems.push(`${at}: needs title, columns and rows`);
        t.rows.forEach((row: unknown, r: number) => {
          if (!Array.isArray(row) || row.length !== (t.columns as unknown[]).length)
            return problems.push(
              `${at}.rows[${r}]: ${Array.isArray(row) ? row.length : "no"} cells for ${(t.columns as unknown[]).length} columns`,
            );
          row.forEach((cell: unknown, c: number) => {
            if (typeof cell !== "string" && !isFiniteNumber(cell))
              problems.push(`${at}.rows[${r}][${c}]: ${String(cell)} is neither text nor a finite number`);
          });
        });
      });
  }
  if (json.notes !== undefined && !(Array.isArray(json.notes) && json.notes.every((n) => typeof n === "string")))
    problems.push("notes: not a list of strings");
  return problems;
}

export interface PackratExpectations {
  /** Models (as the "What ran" table titles them) that must have run every batch size. */
  models: string[];
  batches: number[];
  quick?: boolean;
}

/** The Packrat benchmark's own promises: what ran, each model × B has its speedups, nothing failed. */
export function checkPackratResult(json: unknown, expect: PackratExpectations): string[] {
  const problems = checkBenchResult(json, "packrat");
  if (!isObject(json) || problems.length) return problems;
  if (expect.quick !== undefined && json.quick !== expect.quick)
    problems.push(`quick: ${String(json.quick)}, expected ${expect.quick}`);
  const tables = json.tables as
    Array<{ title: string; columns: string[]; rows: Array<Array<string | number>> }> | undefined;
  const ran = tables?.find((t) => t.title === "What ran");
  if (!ran) return [...problems, 'tables: no "What ran" table'];
  const figures = json.figures as Array<{ label: string }>;
  for (const model of expect.models) {
    const row = ran.rows.find((r) => r[0] === model);
    if (!row) {
      problems.push(`What ran: no row for ${model}`);
      continue;
    }
    if (row[1] !== "ran") problems.push(`What ran: ${model} is "${String(row[1])}"`);
    if (row[3] !== expect.batches.join(", "))
      problems.push(`What ran: ${model} served B = ${String(row[3])}, expected ${expect.batches.join(", ")}`);
    for (const b of expect.batches) {
      for (const what of [
        "speedup of Packrat over ⟨1,",
        "speedup of Packrat over one-thread",
        "mean batch latency, Packrat",
      ]) {
        if (!figures.some((f) => f.label.startsWith(what) && f.label.endsWith(`${model}, B=${b}`)))
          problems.push(`figures: none "${what}…" for ${model}, B=${b}`);
      }
    }
  }
  return problems;
}
