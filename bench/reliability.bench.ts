// Bad input (issue #23), counted: malformed OIP requests against a live agent (tiny CNN), generated and junk
// inputs for every tRPC procedure as admin (a fresh fixture database per procedure), and hostile ONNX uploads
// through the registry's upload service. The figures are counts (tried, 4xx, 5xx, crashes, refusals that changed
// the database); the one ratio is good-request latency after the fuzzing against the same measured before it.
// The same runners as the integration tests under src/testing/fuzz, at the same seeds. Then the fault-tolerance suite
// (issue #22, bench/fault-tolerance-section.ts): the same tests as test/fault, with their figures.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import fc from "fast-check";
import * as ort from "onnxruntime-node";
import { startAgent } from "../apps/agent/src/test-agent-process";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { FileArtifactStore } from "../src/server/artifacts/artifact-store";
import { contextFor, insertTestUser } from "../src/server/auth/test-support";
import { db } from "../src/server/db/client";
import { processMemory, servingSnapshot } from "../src/testing/fuzz/agent-probe";
import { hostileOnnxCases, runHostileOnnx } from "../src/testing/fuzz/hostile-onnx-run";
import { arbitraryFromJsonSchema } from "../src/testing/fuzz/json-schema-arbitrary";
import { fuzzPlan, runOipFuzz } from "../src/testing/fuzz/oip-fuzz-run";
import { goodTinyCnnRequest, TINY_CNN_OIP_SPEC } from "../src/testing/fuzz/oip-good-requests";
import { OIP_FUZZ_CLASSES } from "../src/testing/fuzz/oip-mutator";
import { uploadOversizeBody } from "../src/testing/fuzz/oversize-upload";
import { runProcedureFuzz } from "../src/testing/fuzz/procedure-fuzz";
import { procedureInputs } from "../src/testing/fuzz/procedure-inputs";
import { createFuzzWorld } from "../src/testing/fuzz/procedure-world";
import { createDatabase, findTestPostgres } from "../test/find-postgres";
import { migrate } from "../src/server/db/migrator";
import { faultToleranceSection } from "./fault-tolerance-section";
import { securitySection } from "./security-section";
import { summarize } from "./sample-stats";
import type { Benchmark, BenchFigure, BenchTable } from "./types";
import { testEnv } from "../test/test-env";

const MB = 1024 * 1024;
const BODY_LIMIT = 16 * MB;

async function oipSection(quick: boolean): Promise<{ figures: BenchFigure[]; tables: BenchTable[]; notes: string[] }> {
  const count = quick ? 2_000 : 10_000;
  const model = buildTinyCnn({ seed: 7, producerVersion: "packrat-fuzz" });
  const reference = await ort.InferenceSession.create(Buffer.from(model));
  const agent = await startAgent({
    modelBytes: model,
    name: "tiny-cnn",
    plan: { instances: [{ count: 1, threads: 1, batch: 4 }], batchTimeoutMs: 2 },
    env: { AGENT_MAX_BODY_BYTES: String(BODY_LIMIT) },
  });
  try {
    const port = Number(new URL(agent.url).port);
    const good = async (round: number) => {
      const latencies: number[] = [];
      let correct = 0;
      for (let k = 0; k < 40; k++) {
        const r = await goodTinyCnnRequest(agent.url, reference, round * 1000 + k, 1 + (k % 4), k % 2 === 0);
        latencies.push(r.latencyMs);
        if (r.status === 200 && r.close) correct++;
      }
      return { latencies, correct, total: 40 };
    };
    await good(0); // warm-up
    const before = await good(1);
    const start = await servingSnapshot(agent.url);
    const rssBefore = processMemory(start.pid).rss;

    // A body of twice the limit, announced by Content-Length: refused before it is read.
    let peak = rssBefore;
    const oversize = await uploadOversizeBody({
      port,
      path: "/v2/models/tiny-cnn/infer",
      bytes: 2 * BODY_LIMIT,
      declareLength: true,
      sample: () => {
        peak = Math.max(peak, processMemory(start.pid).rss);
      },
    });

    const started = performance.now();
    const report = await runOipFuzz({ port, model: TINY_CNN_OIP_SPEC, cases: fuzzPlan(count, 1), concurrency: 16 });
    const fuzzSeconds = (performance.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const end = await servingSnapshot(agent.url);
    const rssAfter = processMemory(end.pid).rss;
    const after = await good(2);

    const sum = (pick: (c: (typeof report.perClass)[keyof typeof report.perClass]) => number) =>
      OIP_FUZZ_CLASSES.reduce((n, c) => n + pick(report.perClass[c]), 0);
    const crashes = end.restarts - start.restarts + (end.pid !== start.pid && end.restarts === start.restarts ? 1 : 0);
    const b = summarize(before.latencies);
    const a = summarize(after.latencies);
    const figures: BenchFigure[] = [
      { label: "OIP: malformed requests tried", value: report.tried, unit: "requests" },
      {
        label: "OIP: answered 4xx with a JSON {error}",
        value: sum((c) => c.status4xx) - sum((c) => c.withoutJsonError),
        unit: "requests",
      },
      { label: "OIP: answered 4xx without a JSON error", value: sum((c) => c.withoutJsonError), unit: "requests" },
      { label: "OIP: answered 5xx", value: sum((c) => c.status5xx), unit: "requests" },
      { label: "OIP: accepted (2xx) though malformed", value: sum((c) => c.status2xx), unit: "requests" },
      { label: "OIP: no answer (transport failure)", value: sum((c) => c.transportErrors), unit: "requests" },
      { label: "OIP: agent crashes (serving-process restarts)", value: crashes, unit: "crashes" },
      { label: "OIP: malformed requests per second (16 in flight)", value: report.tried / fuzzSeconds, unit: "req/s" },
      {
        label: "OIP: serving-process RSS after the run + 5 s idle, minus before",
        value: (rssAfter - rssBefore) / MB,
        unit: "MiB",
      },
      {
        label: "OIP: 2× limit body (32 MiB, Content-Length): status",
        value: oversize.response?.status ?? 0,
        unit: "HTTP status",
      },
      { label: "OIP: 2× limit body: peak RSS growth while uploading", value: (peak - rssBefore) / MB, unit: "MiB" },
      {
        label: "OIP: good requests correct after the run (vs session.run)",
        value: after.correct,
        unit: `of ${after.total}`,
      },
      {
        label: "OIP: good-request p50 latency before the run (baseline)",
        value: b.p50,
        unit: "ms",
        samples: b.n,
        spread: { kind: "iqr", low: b.p25, high: b.p75 },
      },
      {
        label: "OIP: good-request p50 latency after the run",
        value: a.p50,
        unit: "ms",
        samples: a.n,
        spread: { kind: "iqr", low: a.p25, high: a.p75 },
      },
      { label: "OIP: good-request p50 after / before", value: a.p50 / b.p50, unit: "×" },
    ];
    const tables: BenchTable[] = [
      {
        title: "OIP fuzzing per class (request i: class i mod 9, seed 1 + i)",
        columns: ["class", "tried", "4xx", "5xx", "2xx", "no answer", "4xx without JSON", "statuses"],
        rows: OIP_FUZZ_CLASSES.map((cls) => {
          const c = report.perClass[cls];
          return [
            cls,
            c.tried,
            c.status4xx,
            c.status5xx,
            c.status2xx,
            c.transportErrors,
            c.withoutJsonError,
            Object.entries(c.byStatus)
              .map(([s, n]) => `${s}×${n}`)
              .join(" "),
          ];
        }),
      },
    ];
    const notes = [
      `OIP: ${report.tried} requests, fuzzPlan(${report.tried}, 1), 16 in flight, one connection each, against the agent serving the tiny CNN ⟨1 × 1 thread, b = 4⟩ with AGENT_MAX_BODY_BYTES = 16 MiB.`,
      ...(report.findings.length
        ? [
            `OIP findings (class/seed/verdict): ${report.findings
              .slice(0, 10)
              .map((f) => `${f.cls}/${f.seed}/${f.verdict}`)
              .join(", ")}`,
          ]
        : []),
      "OIP before the fixes of commit 9e6b338 (same 10,000 requests against commit 7d9bfe6): 327 answered 5xx (stack overflow on deep data, URIError, Invalid URL), 1,367 accepted though malformed (ignored Content-Type/Encoding, data nested deeper than the shape), 898 answered 4xx without a JSON body (Node's bare clientError), 9 lost to a connection reset.",
    ];
    return { figures, tables, notes };
  } finally {
    await agent.stop();
    await reference.release();
  }
}

async function procedureSection(
  quick: boolean,
  adminUrl: string,
): Promise<{ figures: BenchFigure[]; tables: BenchTable[]; notes: string[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), "packrat-bench-procedures-"));
  const world = await createFuzzWorld(adminUrl, dataDir);
  try {
    // Imported after the world points DATABASE_URL at its database (the server's env module reads it once).
    const { appRouter, createCaller } = await import("../src/server/api/root");
    const procedures = procedureInputs(appRouter);
    const call = (path: string, input: unknown) => {
      const caller = createCaller(contextFor(world.admin)) as unknown as Record<string, unknown>;
      return (
        path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (
          i: unknown,
        ) => Promise<unknown>
      )(input);
    };
    const validRuns = quick ? 5 : 20;
    const junkRuns = quick ? 3 : 10;
    const report = await runProcedureFuzz({
      procedures,
      call,
      snapshot: () => world.snapshot(),
      prepare: () => world.fresh(),
      validRuns,
      junkRuns,
      seed: 23,
      arbitraryOptions: {
        stringAt: (path, schema) =>
          /^(id|.*Id)$/.test(path.at(-1) ?? "")
            ? (fc.oneof(fc.constantFrom(...world.ids), arbitraryFromJsonSchema(schema)) as fc.Arbitrary<string>)
            : undefined,
      },
    });
    const rows = Object.entries(report.perProcedure);
    const total = (pick: (c: (typeof rows)[number][1]) => number) => rows.reduce((n, [, c]) => n + pick(c), 0);
    const refused4xx = total((c) =>
      Object.entries(c.byCode)
        .filter(([code]) => code !== "INTERNAL_SERVER_ERROR" && code !== "NOT_A_TRPC_ERROR")
        .reduce((n, [, k]) => n + k, 0),
    );
    return {
      figures: [
        { label: "tRPC: procedures fuzzed (every one with an input)", value: procedures.length, unit: "procedures" },
        { label: "tRPC: calls as admin", value: report.calls, unit: "calls" },
        { label: "tRPC: succeeded", value: total((c) => c.ok), unit: "calls" },
        { label: "tRPC: refused with a 4xx code", value: refused4xx, unit: "calls" },
        { label: "tRPC: INTERNAL_SERVER_ERROR (500)", value: total((c) => c.internalErrors), unit: "calls" },
        {
          label: "tRPC: refusals after which a table differed",
          value: total((c) => c.changedOnRefusal),
          unit: "calls",
        },
      ],
      tables: [
        {
          title: `tRPC procedures (${validRuns} valid-shaped + ${junkRuns} junk inputs each, admin, fresh fixture database per procedure)`,
          columns: ["procedure", "calls", "ok", "refusals by code", "500s", "changed on refusal"],
          rows: rows.map(([path, c]) => [
            path,
            c.calls,
            c.ok,
            Object.entries(c.byCode)
              .map(([code, n]) => `${code}×${n}`)
              .join(" "),
            c.internalErrors,
            c.changedOnRefusal,
          ]),
        },
      ],
      notes: [
        "tRPC: inputs from each procedure's zod schema via z.toJSONSchema and src/testing/fuzz/json-schema-arbitrary.ts (hostile strings at their length limits, integer edges, extra __proto__ keys; ids half the time from real fixture rows), plus junk (JSON and superjson values, 1 MB strings, 10,000-deep nesting, one field swapped for junk). Seed 23.",
        "tRPC before commit 4ddebc8: NUL characters and lone surrogates in text, Dates before 4713 BC, an audit cursor past 2^63 − 1 and a rollback generation past 2^31 − 1 each reached PostgreSQL and came back as INTERNAL_SERVER_ERROR (11 regression inputs in src/testing/fuzz/procedure-regressions.ts).",
        ...(report.findings.length
          ? [
              `tRPC findings: ${report.findings
                .slice(0, 10)
                .map((f) => `${f.path} ${f.problem}: ${f.message.slice(-120)}`)
                .join(" | ")}`,
            ]
          : []),
      ],
    };
  } finally {
    await world.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function onnxSection(
  quick: boolean,
  adminUrl: string,
): Promise<{ figures: BenchFigure[]; tables: BenchTable[]; notes: string[] }> {
  const root = mkdtempSync(join(tmpdir(), "packrat-bench-onnx-"));
  const database = await createDatabase(adminUrl, "packrat_bench_onnx");
  try {
    await migrate(database.url, join(process.cwd(), "prisma/migrations"));
    // The process's client and pool (on globalThis) closed: the next db() connects to this database.
    const { resetDbForTests } = await import("../src/server/db/client");
    await resetDbForTests();
    testEnv.DATABASE_URL = database.url;
    const { resetEnvForTests } = await import("../src/server/env");
    resetEnvForTests();
    const { uploadModel } = await import("../src/server/services/models-upload-service");
    const { smallValidModel } = await import("../src/testing/fuzz/hostile-onnx");
    const store = new FileArtifactStore(join(root, "artifacts"));
    const ml = await insertTestUser(db(), "ml_engineer");
    const limits = {
      maxBytes: 64 * MB,
      archiveMaxBytes: 64 * MB,
      validateTimeoutMs: 60_000,
      validateMaxRssBytes: 2 * 1024 * MB,
    };
    const upload = (bytes: Uint8Array, name: string) =>
      uploadModel(
        { user: ml, requestId: name },
        { name, body: Readable.from([Buffer.from(bytes)]), declaredBytes: bytes.length },
        limits,
        store,
      );
    const snapshot = async () => {
      const prisma = db();
      const staging = join(root, "artifacts", "staging");
      return JSON.stringify({
        rows: [
          await prisma.model.count(),
          await prisma.modelVersion.count(),
          await prisma.artifact.count(),
          await prisma.auditEvent.count(),
        ],
        files: (await store.list()).sort(),
        staged: readdirSync(join(root, "artifacts")).includes("staging") ? readdirSync(staging) : [],
      });
    };
    const cases = hostileOnnxCases(quick ? 2 : 4);
    const report = await runHostileOnnx({ cases, upload, snapshot });
    let afterwards = 0;
    try {
      await upload(smallValidModel(), "after-hostile");
      afterwards = 1;
    } catch {
      afterwards = 0;
    }
    const kinds = Object.entries(report.perKind);
    const total = (pick: (c: (typeof kinds)[number][1]) => number) => kinds.reduce((n, [, c]) => n + pick(c), 0);
    await resetDbForTests();
    return {
      figures: [
        { label: "ONNX: hostile files uploaded", value: total((c) => c.tried), unit: "files" },
        { label: "ONNX: refused with a message", value: total((c) => c.refused), unit: "files" },
        { label: "ONNX: accepted into the registry", value: total((c) => c.accepted), unit: "files" },
        { label: "ONNX: failed with an unexpected error (500)", value: total((c) => c.otherErrors), unit: "files" },
        { label: "ONNX: refusals that left a row or a file behind", value: total((c) => c.leftovers), unit: "files" },
        { label: "ONNX: a good upload right after (control plane still serving)", value: afterwards, unit: "of 1" },
      ],
      tables: [
        {
          title: "Hostile ONNX uploads per kind (distinct variants from seeds 0, 1, 2, …)",
          columns: ["kind", "tried", "refused", "codes", "accepted", "other errors"],
          rows: kinds.map(([kind, c]) => [
            kind,
            c.tried,
            c.refused,
            Object.entries(c.byCode)
              .map(([code, n]) => `${code}×${n}`)
              .join(" "),
            c.accepted,
            c.otherErrors,
          ]),
        },
      ],
      notes: [
        "ONNX: through uploadModel (stream to the artifact store, validation in a watched child, analysis, registration) with a 64 MiB limit, 60 s and 2 GiB for the child.",
        "ONNX before commit a9c1f18: a ~100-byte file declaring an unused [2^40, 4] double initializer with no data was accepted and registered with 4.4e12 parameters (ONNX Runtime drops unused initializers unread); sparse external data was refused with ONNX Runtime's graph error instead of EXTERNAL_DATA.",
      ],
    };
  } finally {
    await database.drop();
    rmSync(root, { recursive: true, force: true });
  }
}

const bench: Benchmark = {
  name: "reliability",
  description:
    "Bad input (issue #23): malformed OIP requests against a live agent, generated and junk inputs for every tRPC procedure, hostile ONNX uploads: counts of 4xx, 5xx, crashes and refusals that changed something. Fault tolerance (issue #22): each part killed, stopped or starved under load: requests sent, failed, lost, recovery times",
  async run({ quick }) {
    const server = await findTestPostgres(testEnv);
    try {
      const oip = await oipSection(quick);
      const onnx = await onnxSection(quick, server.adminUrl);
      const procedures = await procedureSection(quick, server.adminUrl);
      const faults = await faultToleranceSection();
      const security = await securitySection();
      return {
        figures: [...oip.figures, ...procedures.figures, ...onnx.figures, ...faults.figures, ...security.figures],
        tables: [...oip.tables, ...procedures.tables, ...onnx.tables, ...faults.tables, ...security.tables],
        notes: [
          ...oip.notes,
          ...procedures.notes,
          ...onnx.notes,
          `PostgreSQL source: ${server.source}.`,
          ...faults.notes,
          ...security.notes,
        ],
      };
    } finally {
      await server.stop();
    }
  },
};

export default bench;
