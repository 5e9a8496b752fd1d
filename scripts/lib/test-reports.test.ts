import { describe, expect, it } from "vitest";
import { firstLines, readPlaywrightReport, readVitestReport } from "./test-reports";

// Shapes as Vitest 4 and Playwright write them (trimmed to the fields read).
const vitest = {
  numPassedTests: 3,
  numFailedTests: 1,
  numPendingTests: 1,
  numTodoTests: 0,
  testResults: [
    {
      name: "/repo/src/a.test.ts",
      status: "failed",
      assertionResults: [
        { fullName: "a > adds", title: "adds", status: "passed", failureMessages: [] },
        // Passed on its retry: the failed try's error stays in failureMessages.
        {
          fullName: "a > retried",
          title: "retried",
          status: "passed",
          failureMessages: [
            "AssertionError: expected 1 to be 2\n    at /repo/src/a.test.ts:3:44\n    at file:///repo/node_modules/@vitest/runner/dist/x.js:1:1",
          ],
        },
        {
          fullName: "a > breaks",
          title: "breaks",
          status: "failed",
          failureMessages: ["\u001b[31mAssertionError: expected 2 to be 3\u001b[39m\n    at new Promise (<anonymous>)"],
        },
        { fullName: "a > later", title: "later", status: "skipped", failureMessages: [] },
      ],
    },
    { name: "/repo/src/b.test.ts", status: "failed", message: "SyntaxError: Unexpected token", assertionResults: [] },
    {
      name: "/repo/src/c.test.ts",
      status: "passed",
      assertionResults: [{ fullName: "c", title: "c", status: "passed", failureMessages: [] }],
    },
  ],
};

describe("readVitestReport", () => {
  const reading = readVitestReport("unit", vitest, "/repo");

  it("counts a skipped test and a file that did not load as failures: 1 failed + 1 pending + 1 broken file", () => {
    expect({ passed: reading.passed, failed: reading.failed }).toEqual({ passed: 3, failed: 3 });
  });

  it("names each failure with its first error line, without colour codes or foreign stack frames", () => {
    expect(reading.failures).toEqual([
      "  unit src/a.test.ts > a > breaks (failed)\n      AssertionError: expected 2 to be 3",
      "  unit src/a.test.ts > a > later (skipped)\n",
      "  unit src/b.test.ts (the file failed to run)\n      SyntaxError: Unexpected token",
    ]);
  });

  it("lists a test that passed on its retry as flaky, with the failed try's error", () => {
    expect(reading.flaky).toEqual([
      "  unit src/a.test.ts > a > retried\n      AssertionError: expected 1 to be 2\n          at /repo/src/a.test.ts:3:44",
    ]);
  });
});

describe("readPlaywrightReport", () => {
  const spec = (title: string, line: number, status: string, message?: string) => ({
    title,
    file: "x.spec.ts",
    line,
    tests: [{ status, results: [{ error: message ? { message } : undefined }] }],
  });
  const reading = readPlaywrightReport("e2e", {
    suites: [
      {
        title: "x.spec.ts",
        specs: [spec("fine", 3, "expected"), spec("flakes", 9, "flaky", "Timed out 5000ms")],
        suites: [
          {
            title: "group",
            specs: [
              spec("fails", 20, "unexpected", "Error: expect(locator).toBeVisible()"),
              spec("not run", 30, "skipped"),
            ],
          },
        ],
      },
    ],
    errors: [{ message: "Error: webServer exited early" }],
    stats: { expected: 1, flaky: 1, unexpected: 1, skipped: 1 },
  });

  it("counts a flaky test as passed; a failed, a skipped one and an error outside tests as failed", () => {
    expect({ passed: reading.passed, failed: reading.failed }).toEqual({ passed: 2, failed: 3 });
  });

  it("names tests by file, line and describe titles (the file's own suite title left out)", () => {
    expect(reading.failures).toEqual([
      "  e2e x.spec.ts:20 > group > fails (unexpected)\n      Error: expect(locator).toBeVisible()",
      "  e2e x.spec.ts:30 > group > not run (skipped)\n",
      "  e2e (outside any test)\n      Error: webServer exited early",
    ]);
    expect(reading.flaky).toEqual(["  e2e x.spec.ts:9 > flakes\n      Timed out 5000ms"]);
  });
});

describe("firstLines", () => {
  it("keeps at most n non-empty lines, each cut at 300 characters", () => {
    expect(firstLines(`a\n\nb\nc\n${"d".repeat(400)}`, 3)).toBe("      a\n      b\n      c");
    expect(firstLines("x".repeat(400)).length).toBe(6 + 300);
    expect(firstLines(undefined)).toBe("");
  });
});
