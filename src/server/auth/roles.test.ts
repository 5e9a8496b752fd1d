import { describe, expect, it } from "vitest";
import { Role as PrismaRole } from "@/generated/prisma/enums";
import { isRole, roles, roleSatisfies } from "@/core/security/roles";

describe("roles", () => {
  it("are exactly the database enum's values", () => {
    expect([...roles].sort()).toEqual(Object.values(PrismaRole).sort());
  });

  it("admin passes every gate; every other role passes only its own", () => {
    // 4 roles × 4 gates = 16 pairs: the 4 diagonal ones plus admin's 3 others are true, 9 are false.
    const passes = roles.flatMap((role) =>
      roles.filter((gate) => roleSatisfies(role, gate)).map((gate) => `${role}>${gate}`),
    );
    expect(passes.sort()).toEqual([
      "admin>admin",
      "admin>manager",
      "admin>ml_engineer",
      "admin>sre",
      "manager>manager",
      "ml_engineer>ml_engineer",
      "sre>sre",
    ]);
  });

  it("recognises role names and nothing else", () => {
    expect(isRole("sre")).toBe(true);
    expect(isRole("root")).toBe(false);
    expect(isRole(undefined)).toBe(false);
  });
});
