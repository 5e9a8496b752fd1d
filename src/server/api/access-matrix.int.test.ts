// The access matrix, enforced: every procedure of the router is called as anonymous and as each role, with
// a deliberately empty input. Anonymous must get UNAUTHORIZED, a role outside the matrix's list FORBIDDEN
// (so the gate runs before input validation: an empty input would otherwise be BAD_REQUEST), and an allowed
// role anything else. A procedure missing from the matrix, or a matrix entry with no procedure, fails.
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { appRouter, createCaller } from "@/server/api/root";
import { accessMatrix } from "@/server/api/access-matrix";
import { roles, type Role } from "@/server/auth/roles";
import { contextFor, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";

type Outcome = "UNAUTHORIZED" | "FORBIDDEN" | "allowed";
const callers = ["anonymous", ...roles] as const;
type Caller = (typeof callers)[number];

const procedurePaths = Object.keys(appRouter._def.procedures).sort();

function expected(path: string, caller: Caller): Outcome {
  const allowed = accessMatrix[path];
  if (allowed === "public") return "allowed";
  if (caller === "anonymous") return "UNAUTHORIZED";
  return allowed?.includes(caller) ? "allowed" : "FORBIDDEN";
}

async function outcome(user: SessionUser | null, path: string): Promise<Outcome> {
  const caller = createCaller(contextFor(user)) as unknown as Record<string, unknown>;
  const procedure = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (input: unknown) => Promise<unknown>;
  try {
    await procedure(undefined);
    return "allowed";
  } catch (error) {
    if (error instanceof TRPCError && (error.code === "UNAUTHORIZED" || error.code === "FORBIDDEN")) return error.code;
    return "allowed"; // BAD_REQUEST for the empty input, NOT_FOUND, …: it got past the gate
  }
}

describe("access matrix", () => {
  const users = {} as Record<Role, SessionUser>;

  beforeAll(async () => {
    for (const role of roles) users[role] = await insertTestUser(db(), role);
  });

  it("lists every procedure of the router, and nothing else", () => {
    expect(procedurePaths.length).toBeGreaterThan(0);
    expect(procedurePaths.filter((p) => !(p in accessMatrix))).toEqual([]);
    expect(Object.keys(accessMatrix).filter((p) => !procedurePaths.includes(p))).toEqual([]);
  });

  it("admin is allowed wherever any role is (admin passes every gate)", () => {
    for (const [path, allowed] of Object.entries(accessMatrix)) {
      if (allowed !== "public") expect({ path, admin: allowed.includes("admin") }).toEqual({ path, admin: true });
    }
  });

  it("every procedure answers anonymous and each role exactly as the matrix says", async () => {
    const actual: Record<string, Record<Caller, Outcome>> = {};
    const wanted: Record<string, Record<Caller, Outcome>> = {};
    for (const path of procedurePaths) {
      actual[path] = {} as Record<Caller, Outcome>;
      wanted[path] = {} as Record<Caller, Outcome>;
      for (const caller of callers) {
        actual[path][caller] = await outcome(caller === "anonymous" ? null : users[caller], path);
        wanted[path][caller] = expected(path, caller);
      }
    }
    // One table-shaped diff when anything disagrees.
    expect(actual).toEqual(wanted);
  });
});
