// What a caller of /api/trpc reads when a procedure fails: a classified (domain) error keeps its message; anything
// else (a driver's error, a bug) answers INTERNAL_SERVER_ERROR with a fixed text and the request id, never the
// error's own words, which can name tables, paths or connection strings.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { describe, expect, it } from "vitest";
import { createTrpcContext, createTrpcRouter, publicProcedure } from "./trpc";
import { AllocatorError } from "@/core/allocator/errors";
import { conflict, invalidInput } from "@/server/errors/domain-errors";

const SECRET = 'postgres://packrat:hunter2@db.internal:5432/packrat relation "User" column "passwordHash"';

const router = createTrpcRouter({
  boom: publicProcedure.query(() => {
    throw new Error(SECRET);
  }),
  clash: publicProcedure.mutation(() => {
    throw conflict("a model named resnet already exists");
  }),
  // src/core's refusal, straight out of a procedure: no service converted it.
  refuse: publicProcedure.query(() => {
    throw new AllocatorError("cannot-fit", "plan", "2×⟨t=4⟩ needs 8 cores; the budget has 6");
  }),
  field: publicProcedure.mutation(() => {
    throw invalidInput("choose at least one CPU", { field: "cpus" });
  }),
});

async function call(path: string, method: "GET" | "POST"): Promise<{ status: number; text: string }> {
  const req = new Request(`http://localhost/api/trpc/${path}`, {
    method,
    headers: { "content-type": "application/json", "x-request-id": "req-errors-1" },
    ...(method === "POST" ? { body: "{}" } : {}),
  });
  const response = await fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router,
    createContext: () => createTrpcContext({ headers: req.headers, requestId: "req-errors-1" }),
  });
  return { status: response.status, text: await response.text() };
}

describe("tRPC error text", () => {
  it("answers an unclassified error with a fixed message and the request id, none of the error's own text", async () => {
    const { status, text } = await call("boom", "GET");
    expect(status).toBe(500);
    expect(text).toContain("INTERNAL_SERVER_ERROR");
    expect(text).toContain("req-errors-1");
    for (const leak of ["hunter2", "db.internal", "passwordHash", "relation"]) expect(text).not.toContain(leak);
  });

  it("keeps a domain error's message and code", async () => {
    const { status, text } = await call("clash", "POST");
    expect(status).toBe(409);
    expect(text).toContain("a model named resnet already exists");
    expect(text).toContain("CONFLICT");
  });

  it("answers src/core's refusal of its input as BAD_REQUEST with the domain code and the parameter", async () => {
    const { status, text } = await call("refuse", "GET");
    expect(status).toBe(400);
    const data = JSON.parse(text).error.json.data;
    expect(data).toMatchObject({ code: "BAD_REQUEST", domainCode: "cannot-fit", parameter: "plan" });
    expect(JSON.parse(text).error.json.message).toBe("2×⟨t=4⟩ needs 8 cores; the budget has 6");
  });

  it("names a domain error's field as its parameter", async () => {
    const { status, text } = await call("field", "POST");
    expect(status).toBe(400);
    expect(JSON.parse(text).error.json.data).toMatchObject({
      code: "BAD_REQUEST",
      domainCode: "INVALID_INPUT",
      parameter: "cpus",
    });
  });
});
