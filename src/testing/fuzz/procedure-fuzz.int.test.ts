// Issue #23, procedure fuzzing: every tRPC procedure that takes input is called as admin (who passes every gate)
// with inputs generated from its own zod schema (z.toJSONSchema → fast-check, hostile within the rules, ids drawn
// half the time from real rows) and with junk. No call may end in INTERNAL_SERVER_ERROR, and after every refused
// call every table's rows must be exactly what they were. Each procedure gets a fresh copy of a fixture database
// (users, an agent, a deployed model, a profile, a proposal), so other test files' rows cannot move the
// fingerprint and one procedure's deletions do not starve the next.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appRouter, createCaller } from "@/server/api/root";
import { contextFor } from "@/server/auth/test-support";
import { arbitraryFromJsonSchema } from "./json-schema-arbitrary";
import { runProcedureFuzz } from "./procedure-fuzz";
import { procedureInputs } from "./procedure-inputs";
import { createFuzzWorld, type FuzzWorld } from "./procedure-world";
import { PROCEDURE_REGRESSIONS } from "./procedure-regressions";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-procedure-fuzz-"));
let world: FuzzWorld;
const procedures = procedureInputs(appRouter);

function callAsAdmin(path: string, input: unknown): Promise<unknown> {
  const caller = createCaller(contextFor(world.admin)) as unknown as Record<string, unknown>;
  const procedure = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (
    input: unknown,
  ) => Promise<unknown>;
  return procedure(input);
}

beforeAll(async () => {
  world = await createFuzzWorld(inject("adminDatabaseUrl"), dataDir);
  await world.fresh();
});

afterAll(async () => {
  await world?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("procedure fuzzing (issue #23)", () => {
  it("finds every procedure's input schema in the router and can generate for each", () => {
    expect(procedures.length).toBeGreaterThan(30);
    const unconvertible = procedures.flatMap((p) => {
      try {
        arbitraryFromJsonSchema(p.schema);
        return [];
      } catch (error) {
        return [`${p.path}: ${(error as Error).message}`];
      }
    });
    expect(unconvertible).toEqual([]);
  });

  it("replays every input that once made a procedure fail: each is now refused (or served), never a 500", async () => {
    await world.fresh();
    const failing: string[] = [];
    for (const regression of PROCEDURE_REGRESSIONS) {
      const outcome = await callAsAdmin(regression.path, regression.input(world.named)).then(
        () => "ok",
        (error: { code?: string }) => error.code ?? "not a tRPC error",
      );
      if (outcome === "INTERNAL_SERVER_ERROR" || outcome === "not a tRPC error")
        failing.push(`${regression.path} (${regression.found}): ${outcome}`);
    }
    expect(failing).toEqual([]);
  });

  it("calls every procedure with 20 valid-shaped and 10 junk inputs as admin: no 500, nothing changed by a refusal", async () => {
    const report = await runProcedureFuzz({
      procedures,
      call: callAsAdmin,
      snapshot: () => world.snapshot(),
      prepare: () => world.fresh(),
      validRuns: 20,
      junkRuns: 10,
      seed: 23,
      // A wrong current password is counted by the sign-in throttle and audited, as a failed sign-in is.
      writesOnRefusal: { "users.changePassword": ["public.sign_in_throttle", "public.audit_event"] },
      arbitraryOptions: {
        // Half of the id-shaped strings name real rows, so calls get past "not found" into the procedure.
        stringAt: (path, schema) =>
          /^(id|.*Id)$/.test(path.at(-1) ?? "")
            ? (fc.oneof(fc.constantFrom(...world.ids), arbitraryFromJsonSchema(schema)) as fc.Arbitrary<string>)
            : undefined,
      },
    });
    // FUZZ_REPORT=path keeps the whole report (counts per procedure and code, every finding with its input).
    if (testEnv.FUZZ_REPORT) writeFileSync(testEnv.FUZZ_REPORT, JSON.stringify(report, null, 2));
    expect(report.findings).toEqual([]);
    expect(report.calls).toBe(procedures.length * 30);
    // The fuzzing reached past validation: some calls of each kind were refused for other reasons, some succeeded.
    const codes = Object.values(report.perProcedure).flatMap((c) => Object.keys(c.byCode));
    expect(codes).toContain("BAD_REQUEST");
    expect(codes).toContain("NOT_FOUND");
    expect(Object.values(report.perProcedure).reduce((n, c) => n + c.ok, 0)).toBeGreaterThan(0);
  }, 0); // no time limit: on a shared 2-core machine this takes what it takes
});
