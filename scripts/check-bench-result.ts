// `node --import tsx scripts/check-bench-result.ts bench/results/packrat.json [--packrat-quick]`: exits 1 and lists
// the problems when a benchmark's result file is malformed (a figure that is NaN or Infinity, a ragged table) or,
// with --packrat-quick, when the Packrat benchmark's quick run did not cover every tiny model at every B.
import { readFileSync } from "node:fs";
import { checkBenchResult, checkPackratResult } from "./lib/bench-result-check";

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--"));
if (!file) {
  console.error("usage: check-bench-result.ts RESULT.json [--packrat-quick]");
  process.exit(2);
}
let json: unknown;
try {
  json = JSON.parse(readFileSync(file, "utf8"));
} catch (error) {
  console.error(`${file}: ${(error as Error).message}`);
  process.exit(1);
}
const problems = args.includes("--packrat-quick")
  ? checkPackratResult(json, {
      models: ["tiny MLP", "tiny CNN", "tiny transformer (seq 16)"],
      batches: [1, 2, 4, 8],
      quick: true,
    })
  : checkBenchResult(json);
if (problems.length) {
  console.error(`${file}: ${problems.length} problem(s)`);
  for (const p of problems.slice(0, 50)) console.error(`  ${p}`);
  process.exit(1);
}
const figures = (json as { figures: unknown[] }).figures.length;
console.log(`${file}: sound (${figures} figures, every one finite)`);
