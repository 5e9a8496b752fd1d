// `npm run bench [-- --quick] [-- NAME…]`: runs bench/*.bench.ts, writes bench/results/NAME.json for each,
// then regenerates bench/results/SUMMARY.md from every result file present.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Benchmark, BenchOutput } from "./types";
import { machineInfo, type MachineInfo } from "./machine";
import { renderSummary } from "./summary";

export interface BenchResultFile extends BenchOutput {
  name: string;
  description: string;
  date: string;
  quick: boolean;
  durationS: number;
  machine: MachineInfo;
}

const benchDir = resolve(import.meta.dirname);
const resultsDir = join(benchDir, "results");

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const wanted = args.filter((a) => !a.startsWith("--"));
  const available = readdirSync(benchDir)
    .filter((f) => f.endsWith(".bench.ts"))
    .map((f) => f.replace(/\.bench\.ts$/, ""))
    .sort();
  for (const name of wanted) {
    if (!available.includes(name)) {
      console.error(`no benchmark "${name}"; available: ${available.join(", ")}`);
      process.exit(2);
    }
  }
  mkdirSync(resultsDir, { recursive: true });
  let failures = 0;
  for (const name of wanted.length ? wanted : available) {
    const loaded = (await import(pathToFileURL(join(benchDir, `${name}.bench.ts`)).href)) as { default: Benchmark };
    const bench = loaded.default;
    console.log(`\n=== bench ${bench.name}${quick ? " (quick)" : ""}: ${bench.description}`);
    const started = performance.now();
    try {
      const output = await bench.run({ quick });
      const result: BenchResultFile = {
        name: bench.name,
        description: bench.description,
        date: new Date().toISOString(),
        quick,
        durationS: Math.round((performance.now() - started) / 100) / 10,
        machine: machineInfo(),
        ...output,
      };
      writeFileSync(join(resultsDir, `${bench.name}.json`), `${JSON.stringify(result, null, 2)}\n`);
      for (const f of output.figures) console.log(`  ${f.label}: ${f.value} ${f.unit}`);
    } catch (error) {
      failures++;
      console.error(`  FAILED: ${(error as Error).stack ?? error}`);
    }
  }
  const all = readdirSync(resultsDir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => JSON.parse(readFileSync(join(resultsDir, f), "utf8")) as BenchResultFile);
  writeFileSync(join(resultsDir, "SUMMARY.md"), renderSummary(all));
  console.log(`\nwrote ${join("bench/results", "SUMMARY.md")} (${all.length} benchmark(s))`);
  if (failures) process.exit(1);
}

if (existsSync(benchDir)) await main();
