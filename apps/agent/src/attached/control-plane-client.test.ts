// The agent reads a refusal's domain code from the error body (agentErrorSchema), never from its message: a control
// plane that runs fewer job kinds answers unknown_job_kind with the kinds it runs, and the agent narrows to them.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AGENT_JOB_KINDS } from "@packrat/contracts/agent-jobs";
import { ControlPlaneClient, ControlPlaneError } from "./control-plane-client";

let server: Server | undefined;
afterEach(
  () =>
    new Promise<void>((resolve) => {
      server?.closeAllConnections();
      return server ? server.close(() => resolve()) : resolve();
    }),
);

/** A control plane that answers each GET /jobs/next with `answer(kinds)`; returns its URL and the kinds asked. */
async function controlPlane(answer: (kinds: string[]) => { status: number; body: unknown }) {
  const asked: string[][] = [];
  server = createServer((req, res) => {
    const kinds = new URL(req.url ?? "/", "http://x").searchParams.get("kinds")?.split(",") ?? [];
    asked.push(kinds);
    const { status, body } = answer(kinds);
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, asked };
}

const runs = ["profile", "load_test"];

describe("ControlPlaneClient", () => {
  it("narrows its job kinds to those an unknown_job_kind refusal allows, whatever the message says", async () => {
    const cp = await controlPlane((kinds) =>
      kinds.every((k) => runs.includes(k))
        ? { status: 200, body: { job: null } }
        : {
            status: 400,
            body: {
              error: {
                code: "unknown_job_kind",
                parameter: "kinds",
                message: "not the words an older agent parsed",
                allowed: runs,
              },
            },
          },
    );
    const client = new ControlPlaneClient(cp.url, "prat_test");
    expect(await client.nextJob()).toBeNull(); // refused: narrowed, polls again at once
    expect(await client.nextJob()).toBeNull(); // served with the narrowed kinds
    expect(cp.asked).toEqual([[...AGENT_JOB_KINDS], runs]);
  });

  it("does not narrow on a 400 with another code, even when its message reads like a kinds refusal", async () => {
    const cp = await controlPlane(() => ({
      status: 400,
      body: { error: { code: "BAD_REQUEST", message: "kinds: unknown job kind plan_trial; known: profile" } },
    }));
    const client = new ControlPlaneClient(cp.url, "prat_test");
    const error = await client.nextJob().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ControlPlaneError);
    expect(error).toMatchObject({ status: 400, code: "BAD_REQUEST", fatal: true });
    expect(cp.asked).toEqual([[...AGENT_JOB_KINDS]]);
  });

  it("keeps the status and message of an answer without the error body (a proxy's page)", async () => {
    const cp = await controlPlane(() => ({ status: 502, body: "bad gateway" }));
    const error = await new ControlPlaneClient(cp.url, "prat_test").nextJob().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ status: 502, code: undefined, fatal: false });
    expect((error as Error).message).toContain("bad gateway");
  });
});
