// `npm test`: typecheck, lint, unit, integration, e2e — in that order, each timed. Ends with one line
// "N passed, N failed" that totals every runner from its JSON report (a skipped test counts as failed).
// `npm test -- unit integration` runs only the named stages.
// Under CI (CI=true) a failed test is run once more, as Playwright's own CI advice has it: a test that fails twice
// fails; one that passes the second time counts as passed and is listed by name, with its first error, as flaky,
// so a flake is seen and fixed rather than hidden or allowed to block a landing. TEST_RETRIES=N overrides.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface PlaywrightSuite { title?: string; specs?: { title: string; file: string; line: number; tests?: { status: string; results?: { error?: { message?: string } }[] }[] }[]; suites?: PlaywrightSuite[] }
interface Stage { name: string; command: string[]; report?: "vitest" | "playwright"; env?: Record<string, string> }

const reportDir = mkdtempSync(join(tmpdir(), "packrat-test-reports-"));
chmodSync(reportDir, 0o755); // the embedded database of the e2e server runs as user postgres under it
// Every secret a test mints is appended here (test/secrets-list.ts); .ci/run sets its own list and scans the
// CI log, server logs and client bundles for them afterwards (scripts/scan-secrets.ts). Run alone, the list
// goes with the reports.
process.env.PACKRAT_SECRETS_LIST ||= join(reportDir, "secrets.list");
const retries = Number(process.env.TEST_RETRIES ?? (process.env.CI === "true" ? 1 : 0));
if (!Number.isInteger(retries) || retries < 0) { console.error(`TEST_RETRIES must be a whole number ≥ 0, got "${process.env.TEST_RETRIES}"`); process.exit(2); }
const stages: Stage[] = [
  { name: "typecheck", command: ["npx", "tsc", "--noEmit", "-p", "tsconfig.json"] },
  { name: "lint", command: ["npx", "eslint", "--max-warnings=0", "."] },
  { name: "unit", command: ["npx", "vitest", "run", "--project", "unit", "--reporter=default", "--reporter=json", `--outputFile.json=${join(reportDir, "unit.json")}`, `--retry=${retries}`], report: "vitest" },
  { name: "integration", command: ["npx", "vitest", "run", "--project", "integration", "--reporter=default", "--reporter=json", `--outputFile.json=${join(reportDir, "integration.json")}`, `--retry=${retries}`], report: "vitest" },
  // The e2e server's embedded database lives under reportDir, removed below once the server has stopped.
  { name: "e2e", command: ["npx", "playwright", "test", `--retries=${retries}`], report: "playwright", env: { PLAYWRIGHT_JSON_OUTPUT_NAME: join(reportDir, "e2e.json"), E2E_DATA_DIR: join(reportDir, "e2e-data") } },
];

const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const selected = only.length ? stages.filter((s) => only.includes(s.name)) : stages;
for (const name of only) if (!stages.some((s) => s.name === name)) { console.error(`unknown stage "${name}"; stages: ${stages.map((s) => s.name).join(", ")}`); process.exit(2); }

let passed = 0;
let failed = 0;
const summary: string[] = [];
// Each failed test by name with the first lines of its error, printed again after the summary: CI shows only the
// tail of its log, and a red run must say which test failed.
const failures: string[] = [];
const flaky: string[] = [];
const firstLines = (text: unknown, n = 6): string => String(text ?? "").replace(/\x1b\[[0-9;]*m/g, "").split("\n").filter((l) => l.trim() && !/^\s*at .*(node_modules|<anonymous>|node:internal)/.test(l)).slice(0, n).map((l) => `      ${l.slice(0, 300)}`).join("\n");

function countReport(stage: Stage): { passed: number; failed: number } | undefined {
  const file = join(reportDir, `${stage.name}.json`);
  if (!stage.report || !existsSync(file)) return undefined;
  const json = JSON.parse(readFileSync(file, "utf8"));
  if (stage.report === "vitest") {
    for (const file of json.testResults ?? []) {
      const where = String(file.name ?? "").replace(process.cwd() + "/", "");
      type Assertion = { status: string; fullName?: string; title?: string; failureMessages?: string[] };
      // Passed with the errors of an earlier try: it needed the retry.
      for (const a of (file.assertionResults ?? []) as Assertion[]) {
        if (a.status === "passed" && a.failureMessages?.length) flaky.push(`  ${stage.name} ${where} > ${a.fullName ?? a.title}\n${firstLines(a.failureMessages.join("\n"))}`);
      }
      const failedTests = ((file.assertionResults ?? []) as Assertion[]).filter((a) => a.status !== "passed");
      for (const a of failedTests) failures.push(`  ${stage.name} ${where} > ${a.fullName ?? a.title} (${a.status})\n${firstLines((a.failureMessages ?? []).join("\n"))}`);
      if (file.status === "failed" && !failedTests.length) failures.push(`  ${stage.name} ${where} (the file failed to run)\n${firstLines(file.message)}`);
    }
    // A file that fails to load runs no test; it still counts as one failure.
    const brokenFiles = (json.testResults ?? []).filter((r: { status: string; assertionResults?: unknown[] }) => r.status === "failed" && !r.assertionResults?.length).length;
    return { passed: json.numPassedTests ?? 0, failed: (json.numFailedTests ?? 0) + (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0) + brokenFiles };
  }
  const visit = (suite: PlaywrightSuite, titles: string[]): void => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status === "expected") continue;
        const error = (test.results ?? []).map((r) => r.error?.message).find(Boolean);
        if (test.status === "flaky") { flaky.push(`  ${stage.name} ${spec.file}:${spec.line} > ${[...titles, spec.title].join(" > ")}\n${firstLines(error)}`); continue; }
        failures.push(`  ${stage.name} ${spec.file}:${spec.line} > ${[...titles, spec.title].join(" > ")} (${test.status})\n${firstLines(error)}`);
      }
    }
    for (const child of suite.suites ?? []) visit(child, child.title && !child.title.endsWith(".ts") ? [...titles, child.title] : titles);
  };
  for (const suite of json.suites ?? []) visit(suite, []);
  for (const error of json.errors ?? []) failures.push(`  ${stage.name} (outside any test)\n${firstLines(error.message)}`);
  const s = json.stats ?? {};
  // Errors outside tests (the web server never came up, a spec that fails to load) count as failures too.
  // A flaky test (failed, then passed when retried) counts as passed and is listed above.
  return { passed: (s.expected ?? 0) + (s.flaky ?? 0), failed: (s.unexpected ?? 0) + (s.skipped ?? 0) + (json.errors?.length ?? 0) };
}

let anyFailed = false;
for (const stage of selected) {
  console.log(`\n=== ${stage.name} ===`);
  const started = Date.now();
  const result = spawnSync(stage.command[0]!, stage.command.slice(1), { stdio: "inherit", env: { ...process.env, ...stage.env } });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const flakyBefore = flaky.length;
  const counts = countReport(stage);
  const flakyHere = flaky.length - flakyBefore;
  const ok = result.status === 0;
  if (counts) { passed += counts.passed; failed += counts.failed; }
  else if (!stage.report) { if (ok) passed += 1; else failed += 1; } // a check stage counts as one test
  else { failed += 1; failures.push(`  ${stage.name} (the runner wrote no report: it crashed)`); }
  if (!ok && !stage.report) failures.push(`  ${stage.name} (see its output above)`);
  if (!ok) anyFailed = true;
  summary.push(`${ok ? "ok  " : "FAIL"} ${stage.name.padEnd(12)} ${seconds.padStart(7)} s${counts ? `  (${counts.passed} passed, ${counts.failed} failed${flakyHere ? `, ${flakyHere} of the passed needed their retry` : ""})` : ""}`);
}

rmSync(reportDir, { recursive: true, force: true });
if (flaky.length) console.log(`\n=== flaky: failed, then passed when retried (${flaky.length}) ===\n${flaky.join("\n")}`);
if (failures.length) console.log(`\n=== failures ===\n${failures.join("\n")}`);
console.log(`\n=== summary ===\n${summary.join("\n")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(anyFailed || failed > 0 ? 1 : 0);
