// Reads the JSON reports of Vitest and Playwright into what `npm test` prints: counts, and each failed or flaky
// (failed, then passed when retried) test by name with the first lines of its error.
export interface ReportReading {
  passed: number;
  failed: number;
  /** "  STAGE WHERE > NAME (status)" and the error's first lines, one entry per failed test (or broken file). */
  failures: string[];
  /** The same for tests that passed only on a retry; they count as passed. */
  flaky: string[];
}

interface VitestAssertion {
  status: string;
  fullName?: string;
  title?: string;
  failureMessages?: string[];
}
interface VitestFile {
  name?: string;
  status?: string;
  message?: string;
  assertionResults?: VitestAssertion[];
}
interface VitestReport {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: VitestFile[];
}

interface PlaywrightTest {
  status: string;
  results?: Array<{ error?: { message?: string } }>;
}
interface PlaywrightSuite {
  title?: string;
  specs?: Array<{ title: string; file: string; line: number; tests?: PlaywrightTest[] }>;
  suites?: PlaywrightSuite[];
}
interface PlaywrightReport {
  suites?: PlaywrightSuite[];
  errors?: Array<{ message?: string }>;
  stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number };
}

/** The first lines of an error, without colour codes or stack frames outside our code. */
export function firstLines(text: unknown, n = 6): string {
  return String(text ?? "")
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split("\n")
    .filter((l) => l.trim() && !/^\s*at .*(node_modules|<anonymous>|node:internal)/.test(l))
    .slice(0, n)
    .map((l) => `      ${l.slice(0, 300)}`)
    .join("\n");
}

const entry = (stage: string, where: string, error: unknown) => `  ${stage} ${where}\n${firstLines(error)}`;

/** `root`: stripped from file paths. A skipped or todo test counts as failed; a file that fails to load, as one. */
export function readVitestReport(stage: string, json: VitestReport, root: string): ReportReading {
  const failures: string[] = [];
  const flaky: string[] = [];
  let brokenFiles = 0;
  for (const file of json.testResults ?? []) {
    const where = String(file.name ?? "").replace(`${root}/`, "");
    const assertions = file.assertionResults ?? [];
    for (const a of assertions) {
      const name = `${where} > ${a.fullName ?? a.title}`;
      // Passed with the errors of an earlier try: it needed the retry.
      if (a.status === "passed") {
        if (a.failureMessages?.length) flaky.push(entry(stage, name, a.failureMessages.join("\n")));
      } else failures.push(entry(stage, `${name} (${a.status})`, (a.failureMessages ?? []).join("\n")));
    }
    if (file.status === "failed" && !assertions.some((a) => a.status !== "passed"))
      failures.push(entry(stage, `${where} (the file failed to run)`, file.message));
    if (file.status === "failed" && !assertions.length) brokenFiles++;
  }
  const failed = (json.numFailedTests ?? 0) + (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0) + brokenFiles;
  return { passed: json.numPassedTests ?? 0, failed, failures, flaky };
}

/** Errors outside tests (the web server never came up, a spec that fails to load) count as failures; a skipped
 *  test too; a flaky one counts as passed. */
export function readPlaywrightReport(stage: string, json: PlaywrightReport): ReportReading {
  const failures: string[] = [];
  const flaky: string[] = [];
  const visit = (suite: PlaywrightSuite, titles: string[]): void => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status === "expected") continue;
        const where = `${spec.file}:${spec.line} > ${[...titles, spec.title].join(" > ")}`;
        const error = (test.results ?? []).map((r) => r.error?.message).find(Boolean);
        if (test.status === "flaky") flaky.push(entry(stage, where, error));
        else failures.push(entry(stage, `${where} (${test.status})`, error));
      }
    }
    for (const child of suite.suites ?? [])
      visit(child, child.title && !child.title.endsWith(".ts") ? [...titles, child.title] : titles);
  };
  for (const suite of json.suites ?? []) visit(suite, []);
  for (const error of json.errors ?? []) failures.push(entry(stage, "(outside any test)", error.message));
  const s = json.stats ?? {};
  return {
    passed: (s.expected ?? 0) + (s.flaky ?? 0),
    failed: (s.unexpected ?? 0) + (s.skipped ?? 0) + (json.errors?.length ?? 0),
    failures,
    flaky,
  };
}
