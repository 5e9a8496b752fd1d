import { describe, expect, it } from "vitest";
import { isDatabaseUnavailable } from "./database-unavailable";

describe("isDatabaseUnavailable", () => {
  it("recognizes refused and dropped connections however they are wrapped", () => {
    expect(
      isDatabaseUnavailable(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(new Error("outer", { cause: { kind: "DatabaseNotReachable", host: "127.0.0.1" } })),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
      ),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(new AggregateError([Object.assign(new Error("x"), { code: "ECONNREFUSED" })], "")),
    ).toBe(true);
    expect(
      isDatabaseUnavailable(new Error("wrapped", { cause: new Error("Connection terminated unexpectedly") })),
    ).toBe(true);
    // pg's answer for a pooled client whose connection broke in the moment the server stopped.
    expect(isDatabaseUnavailable(new Error("Client has encountered a connection error and is not queryable"))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error("Client was closed and is not queryable"))).toBe(true);
    // No pooled connection free in time: pg's connect timeout, and Prisma's interactive-transaction maxWait.
    expect(isDatabaseUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(
      isDatabaseUnavailable(
        Object.assign(
          new Error(
            "Transaction API error: Unable to start a transaction in the given time. Please check your connection pool.",
          ),
          { code: "P2028" },
        ),
      ),
    ).toBe(true);
  });

  it("leaves other errors alone", () => {
    expect(
      isDatabaseUnavailable(
        Object.assign(new Error("duplicate key value violates unique constraint"), { code: "23505" }),
      ),
    ).toBe(false);
    expect(isDatabaseUnavailable(new Error("boom"))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    const loop: { message: string; cause?: unknown } = { message: "loop" };
    loop.cause = loop;
    expect(isDatabaseUnavailable(loop)).toBe(false);
  });
});
