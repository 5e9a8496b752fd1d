// The job runner against real PostgreSQL and real pg-boss: a job row goes queued → running (with progress) → done or
// failed; a message delivered twice runs the job once; a job whose worker is gone is put back (then failed after
// its last attempt); a runner that stops hands its running jobs back, and the next runner to start finishes them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { createLogger } from "@/server/log";
import { createJobRow } from "./job-records";
import { JobRunner, type JobKind } from "./job-runner";
import { testEnv } from "../../../test/test-env";

const progressSeen: Array<{ id: string; fraction: number }> = [];
let release: (() => void) | undefined;

const echo: JobKind<{ value: number; block?: boolean }> = {
  kind: "test.echo",
  queue: "test-echo",
  maxAttempts: 2,
  expireInSeconds: 60,
  async run(ctx) {
    await ctx.progress(0.5, "halfway");
    progressSeen.push({ id: ctx.id, fraction: (await db().job.findUniqueOrThrow({ where: { id: ctx.id } })).progress });
    if (ctx.params.block && ctx.attempt === 1)
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    if (ctx.params.value < 0) throw new Error(`cannot echo ${ctx.params.value}`);
    return { echoed: ctx.params.value, attempt: ctx.attempt };
  },
};

const runners: JobRunner[] = [];
function newRunner(): JobRunner {
  const runner = new JobRunner({
    connectionString: testEnv.DATABASE_URL!,
    prisma: db(),
    log: createLogger({ level: "error" }),
    leaseMs: 2_000,
    kinds: [echo as JobKind<never>],
    schema: "pgboss_runner_test",
    pollingIntervalSeconds: 0.5,
  });
  runners.push(runner);
  return runner;
}

async function queued(params: { value: number; block?: boolean }): Promise<string> {
  return (await createJobRow(db(), { kind: echo.kind, params, createdById: null })).id;
}

async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const stateOf = async (id: string) => db().job.findUniqueOrThrow({ where: { id } });
const ended = (id: string) =>
  until(async () => {
    const j = await stateOf(id);
    return ["done", "failed"].includes(j.state) && j;
  }, `job ${id} to end`);

let runner: JobRunner;
beforeAll(async () => {
  await db().job.deleteMany({ where: { kind: echo.kind } });
  runner = newRunner();
  await runner.start();
});
afterAll(async () => {
  for (const r of runners) await r.stop();
});

describe("JobRunner", () => {
  it("runs a job: queued → running with progress → done with its result", async () => {
    const id = await queued({ value: 42 });
    expect((await stateOf(id)).state).toBe("queued");
    await runner.dispatch(id, echo.kind);
    const job = await ended(id);
    expect(job).toMatchObject({ state: "done", progress: 1, attempts: 1, result: { echoed: 42, attempt: 1 } });
    expect(job.startedAt).toBeInstanceOf(Date);
    expect(job.finishedAt!.getTime()).toBeGreaterThanOrEqual(job.startedAt!.getTime());
    expect(progressSeen.find((p) => p.id === id)?.fraction).toBe(0.5);
  });

  it("a job that throws is failed with the error's message", async () => {
    const id = await queued({ value: -1 });
    await runner.dispatch(id, echo.kind);
    expect(await ended(id)).toMatchObject({ state: "failed", error: "cannot echo -1", attempts: 1 });
  });

  it("the same job sent three times runs once", async () => {
    const id = await queued({ value: 7 });
    await Promise.all([runner.dispatch(id, echo.kind), runner.dispatch(id, echo.kind), runner.dispatch(id, echo.kind)]);
    await ended(id);
    await new Promise((r) => setTimeout(r, 1500)); // room for the duplicates to arrive
    expect(await stateOf(id)).toMatchObject({ state: "done", attempts: 1 });
  });

  it("a running job whose worker is gone (no renewal within the lease) is put back and finished", async () => {
    const id = await queued({ value: 5 });
    // As a crashed worker leaves it: running, claimed once, last renewed long ago.
    await db().job.update({
      where: { id },
      data: { state: "running", attempts: 1, startedAt: new Date(), updatedAt: new Date(Date.now() - 10_000) },
    });
    await runner.sweep();
    expect(await ended(id)).toMatchObject({ state: "done", attempts: 2, result: { echoed: 5, attempt: 2 } });
  });

  it("…and failed, with the reason, once it has used its last attempt", async () => {
    const id = await queued({ value: 6 });
    await db().job.update({
      where: { id },
      data: { state: "running", attempts: 2, startedAt: new Date(), updatedAt: new Date(Date.now() - 10_000) },
    });
    await runner.sweep();
    const job = await stateOf(id);
    expect(job.state).toBe("failed");
    expect(job.error).toMatch(/its worker stopped \(no progress for 2 s\), 2 time\(s\)/);
  });

  it("a running job is renewed by its worker, so the sweep leaves it alone", async () => {
    const id = await queued({ value: 9, block: true });
    await runner.dispatch(id, echo.kind);
    await until(async () => release !== undefined && (await stateOf(id)).state === "running", "the job to block");
    // Longer than the 2 s lease (renewed every ⅔ s: a busy host may delay one renewal, not three): only renewals keep it.
    await new Promise((r) => setTimeout(r, 3_200));
    await runner.sweep();
    expect((await stateOf(id)).state).toBe("running");
    release?.();
    release = undefined;
    expect(await ended(id)).toMatchObject({ state: "done", attempts: 1 });
  });

  it("a runner that stops hands its running job back; the next runner to start runs it", async () => {
    const first = newRunner();
    await first.start();
    await runner.stop(); // only `first` takes work now
    const id = await queued({ value: 11, block: true });
    await first.dispatch(id, echo.kind);
    await until(async () => release !== undefined && (await stateOf(id)).state === "running", "the job to start");
    await first.stop();
    expect(await stateOf(id)).toMatchObject({
      state: "queued",
      progressMessage: "requeued: the control plane stopped",
    });
    release?.(); // the abandoned attempt ends; its result is not recorded
    const second = newRunner();
    await second.start();
    expect(await ended(id)).toMatchObject({ state: "done", attempts: 2, result: { echoed: 11, attempt: 2 } });
  });
});
