// `npm test`: typecheck, lint, unit, integration, e2e — in that order, each timed. Ends with one line
// "N passed, N failed" that totals every runner from its JSON report (a skipped test counts as failed).
// `npm test -- unit integration` runs only the named stages.
// Under CI (CI=true) a failed test is run once more, as Playwright's own CI advice has it: a test that fails twice
// fails; one that passes the second time counts as passed and is listed by name, with its first error, as flaky,
// so a flake is seen and fixed rather than hidden or allowed to block a landing. TEST_RETRIES=N overrides.
// Before anything runs, the e2e stage gets its Chromium (scripts/lib/find-browser.ts: the system's, Playwright's
// cached one, or one it installs); when none can be had it stops at once with one line saying what to run.
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { realBrowserSearch, realProbe } from "./lib/browser-search";
import { ensureBrowser } from "./lib/find-browser";
import { readPlaywrightReport, readVitestReport, type ReportReading } from "./lib/test-reports";
import { testEnv } from "../test/test-env";

interface Stage {
  name: string;
  command: string[];
  report?: "vitest" | "playwright";
  env?: Record<string, string>;
}

const reportDir = mkdtempSync(join(tmpdir(), "packrat-test-reports-"));
chmodSync(reportDir, 0o755); // the embedded database of the e2e server runs as user postgres under it
// Every secret a test mints is appended here (test/secrets-list.ts); .ci/run sets its own list and scans the
// CI log, server logs and client bundles for them afterwards (scripts/scan-secrets.ts). Run alone, the list
// goes with the reports.
testEnv.PACKRAT_SECRETS_LIST ||= join(reportDir, "secrets.list");
const retries = Number(testEnv.TEST_RETRIES ?? (testEnv.CI === "true" ? 1 : 0));
if (!Number.isInteger(retries) || retries < 0) {
  console.error(`TEST_RETRIES must be a whole number ≥ 0, got "${testEnv.TEST_RETRIES}"`);
  process.exit(2);
}
const stages: Stage[] = [
  { name: "typecheck", command: ["npx", "tsc", "--noEmit", "-p", "tsconfig.json"] },
  // ESLint, then Prettier's check (package.json's lint script: one definition of what lint means).
  { name: "lint", command: ["npm", "run", "-s", "lint"] },
  {
    name: "unit",
    command: [
      "npx",
      "vitest",
      "run",
      "--project",
      "unit",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${join(reportDir, "unit.json")}`,
      `--retry=${retries}`,
    ],
    report: "vitest",
  },
  {
    name: "integration",
    command: [
      "npx",
      "vitest",
      "run",
      "--project",
      "integration",
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${join(reportDir, "integration.json")}`,
      `--retry=${retries}`,
    ],
    report: "vitest",
  },
  // The e2e server's embedded database lives under reportDir, removed below once the server has stopped.
  {
    name: "e2e",
    command: ["npx", "playwright", "test", `--retries=${retries}`],
    report: "playwright",
    env: { PLAYWRIGHT_JSON_OUTPUT_NAME: join(reportDir, "e2e.json"), E2E_DATA_DIR: join(reportDir, "e2e-data") },
  },
];

const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const selected = only.length ? stages.filter((s) => only.includes(s.name)) : stages;
for (const name of only)
  if (!stages.some((s) => s.name === name)) {
    console.error(`unknown stage "${name}"; stages: ${stages.map((s) => s.name).join(", ")}`);
    process.exit(2);
  }

const e2e = selected.find((s) => s.name === "e2e");
if (e2e) {
  const browser = ensureBrowser(realBrowserSearch(testEnv), realProbe(testEnv), (line) =>
    console.log(`[e2e browser] ${line}`),
  );
  if (!browser.ok) {
    rmSync(reportDir, { recursive: true, force: true });
    console.error(browser.message);
    process.exit(1);
  }
  console.log(
    `[e2e browser] ${browser.found.executable} (${browser.installedBy ? `installed by ${browser.installedBy}` : browser.found.source === "system" ? "the system's" : "Playwright's cache"})`,
  );
  e2e.env = { ...e2e.env, PACKRAT_E2E_CHROMIUM: browser.found.executable };
}

let passed = 0;
let failed = 0;
const summary: string[] = [];
// Each failed test by name with the first lines of its error, and each that passed only on its retry, printed
// before the summary: CI shows only the tail of its log, and a red run must say which test failed.
const failures: string[] = [];
const flaky: string[] = [];

function readReport(stage: Stage): ReportReading | undefined {
  const file = join(reportDir, `${stage.name}.json`);
  if (!stage.report || !existsSync(file)) return undefined;
  const json = JSON.parse(readFileSync(file, "utf8"));
  return stage.report === "vitest"
    ? readVitestReport(stage.name, json, process.cwd())
    : readPlaywrightReport(stage.name, json);
}

let anyFailed = false;
for (const stage of selected) {
  console.log(`\n=== ${stage.name} ===`);
  const started = Date.now();
  const result = spawnSync(stage.command[0]!, stage.command.slice(1), {
    stdio: "inherit",
    env: { ...testEnv, ...stage.env },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const counts = readReport(stage);
  const ok = result.status === 0;
  if (counts) {
    passed += counts.passed;
    failed += counts.failed;
    failures.push(...counts.failures);
    flaky.push(...counts.flaky);
  } else if (!stage.report) {
    if (ok) passed += 1;
    else failed += 1;
  } // a check stage counts as one test
  else {
    failed += 1;
    failures.push(`  ${stage.name} (the runner wrote no report: it crashed)`);
  }
  if (!ok && !stage.report) failures.push(`  ${stage.name} (see its output above)`);
  if (!ok) anyFailed = true;
  summary.push(
    `${ok ? "ok  " : "FAIL"} ${stage.name.padEnd(12)} ${seconds.padStart(7)} s${counts ? `  (${counts.passed} passed, ${counts.failed} failed${counts.flaky.length ? `, ${counts.flaky.length} of the passed needed their retry` : ""})` : ""}`,
  );
}

rmSync(reportDir, { recursive: true, force: true });
if (flaky.length)
  console.log(`\n=== flaky: failed, then passed when retried (${flaky.length}) ===\n${flaky.join("\n")}`);
if (failures.length) console.log(`\n=== failures ===\n${failures.join("\n")}`);
console.log(`\n=== summary ===\n${summary.join("\n")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(anyFailed || failed > 0 ? 1 : 0);
