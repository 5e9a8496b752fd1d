// Inputs that once made a procedure answer INTERNAL_SERVER_ERROR (found by the procedure fuzzer and by probing
// its edges, issue #23), replayed by procedure-fuzz.int.test.ts on a fresh fixture database. `input` gets the
// fixtures' ids, so each call reaches the code that failed; a function, because some inputs are not JSON (Dates).
import type { NamedIds } from "./procedure-fixtures";

export interface ProcedureRegression {
  path: string;
  input: (ids: NamedIds) => unknown;
  found: string;
}

const password = "correct horse battery";

export const PROCEDURE_REGRESSIONS: ProcedureRegression[] = [
  {
    path: "users.resetPassword",
    input: () => ({ userId: "u\u0000", password }),
    found: "NUL in an id: PostgreSQL 'invalid byte sequence for encoding UTF8: 0x00'",
  },
  { path: "agentTokens.create", input: () => ({ name: "token\u0000" }), found: "NUL in a name" },
  { path: "models.list", input: () => ({ search: ".\u0000" }), found: "NUL in a search" },
  { path: "profiles.listForModel", input: () => ({ modelId: "\u{5f43c}\u0000" }), found: "NUL in an id" },
  { path: "proposals.list", input: () => ({ state: "failed", deploymentId: "\u0000" }), found: "NUL in a filter" },
  {
    path: "deployments.undeploy",
    input: ({ deploymentId }) => ({ deploymentId: `${deploymentId}\u0000` }),
    found: "NUL in an id",
  },
  {
    path: "enrollmentTokens.create",
    input: () => ({ name: "\udfff" }),
    found: "a lone surrogate reached the audit event's jsonb: 'Unicode low surrogate must follow a high surrogate'",
  },
  {
    path: "audit.list",
    input: () => ({ from: new Date("-267624-04-13T13:13:44.958Z") }),
    found: "a Date before 4713 BC: timestamp out of range",
  },
  {
    path: "audit.list",
    input: () => ({ before: "9999999999999999999" }),
    found: "an audit cursor beyond 2^63 − 1: 'out of range for type bigint'",
  },
  {
    path: "proposals.rollback",
    input: ({ deploymentId }) => ({ deploymentId, toGeneration: 2 ** 31 }),
    found: "a generation beyond int4: 'out of range for type integer'",
  },
];
