// The Benchmarks page's data: the latest result of every benchmark, read from bench/results/*.json (written by
// `npm run bench`, committed with the code). A file that is not a benchmark result is reported, not shown.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const finite = z.number().refine(Number.isFinite, "must be finite");

const resultSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  date: z.string(),
  quick: z.boolean(),
  durationS: finite,
  machine: z.object({
    cpuModel: z.string(),
    logicalCpus: z.number(),
    memoryBytes: z.number(),
    node: z.string(),
    versions: z.record(z.string(), z.string()).optional(),
  }),
  figures: z.array(
    z.object({
      label: z.string(),
      value: finite,
      unit: z.string(),
      spread: z
        .object({ kind: z.string(), low: finite.optional(), high: finite.optional(), value: finite.optional() })
        .optional(),
      samples: z.number().optional(),
    }),
  ),
  tables: z
    .array(
      z.object({
        title: z.string(),
        columns: z.array(z.string()),
        rows: z.array(z.array(z.union([z.string(), finite]))),
      }),
    )
    .optional(),
  notes: z.array(z.string()).optional(),
});

export type BenchmarkResult = z.infer<typeof resultSchema> & { file: string };

export function benchResultsDir(): string {
  return join(process.cwd(), "bench", "results");
}

export async function listBenchmarkResults(
  dir = benchResultsDir(),
): Promise<{ results: BenchmarkResult[]; unreadable: Array<{ file: string; reason: string }> }> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((f) => f.endsWith(".json")).sort();
  } catch {
    return { results: [], unreadable: [] }; // no results yet: the page says how to make them
  }
  const results: BenchmarkResult[] = [];
  const unreadable: Array<{ file: string; reason: string }> = [];
  for (const file of files) {
    try {
      const parsed = resultSchema.safeParse(JSON.parse(await readFile(join(dir, file), "utf8")));
      if (parsed.success) results.push({ ...parsed.data, file });
      else
        unreadable.push({
          file,
          reason: `${parsed.error.issues[0]!.path.join(".")}: ${parsed.error.issues[0]!.message}`,
        });
    } catch (error) {
      unreadable.push({ file, reason: (error as Error).message });
    }
  }
  return { results: results.sort((a, b) => a.name.localeCompare(b.name)), unreadable };
}
