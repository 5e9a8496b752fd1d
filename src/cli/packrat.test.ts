import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { optimize } from "../core/optimizer/optimize";
import { optimumTable } from "../core/optimizer/optimum-table";
import { EXIT, runPackrat } from "./packrat";
import { parseProfileCsv } from "./profile-csv";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const fixtures = "src/core/optimizer/fixtures";
const MODELS = ["bert", "gpt2", "inception", "resnet"] as const;
const fixtureText = (model: string) => readFileSync(`${repoRoot}${fixtures}/${model}-cloudlab16.csv`, "utf8");

/** Runs the CLI in-process against an in-memory file system. */
function run(argv: string[], files: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = runPackrat(argv, {
    cwd: "/virtual",
    readFile: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
      return text;
    },
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

// Digest P1 as a CSV (T = 4, b ∈ {1, 2, 4}).
const P1_CSV =
  "threads,batch,latency_ms\n1,1,10\n1,2,19\n1,4,37\n2,1,6\n2,2,11\n2,4,21\n3,1,4.8\n3,2,8.5\n3,4,16\n4,1,4.2\n4,2,7.2\n4,4,13\n";

describe("packrat optimize (in-process)", () => {
  it("Packrat DP P1 T=4, B=4 as text: {⟨1,1⟩×4} = 10 ms, 400 samples/s, 1.30× faster than ⟨1,4,4⟩ = 13", () => {
    const { code, stdout } = run(["optimize", "--profile", "p1.csv", "--cores", "4", "--batch", "4"], {
      "/virtual/p1.csv": P1_CSV,
    });
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(/Plan: 4 instances, 4 threads, 0 idle cores/);
    expect(stdout).toMatch(/^\s+4\s+1\s+1\s+10\.00$/m);
    expect(stdout).toMatch(/Predicted batch latency 10\.00 ms, throughput 400\.0 samples\/s/);
    expect(stdout).toMatch(/all 4 threads: .*13\.00 ms.*1\.30× faster/);
  });

  it("--json prints the library's result", () => {
    const { code, stdout } = run(
      ["optimize", "--profile", "p1.csv", "--cores", "4", "--batch", "3", "--exact-cores", "--json"],
      {
        "/virtual/p1.csv": P1_CSV,
      },
    );
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout)).toEqual(optimize(parseProfileCsv(P1_CSV), { cores: 4, batch: 3, exactCores: true }));
  });

  it("infeasible: exit 3 with {kind: infeasible, reason} (P1 has no b = 3, one thread allows one instance)", () => {
    const { code, stdout } = run(["optimize", "--profile", "p1.csv", "--cores", "1", "--batch", "3", "--json"], {
      "/virtual/p1.csv": P1_CSV,
    });
    expect(code).toBe(EXIT.infeasible);
    expect(JSON.parse(stdout)).toEqual({ kind: "infeasible", reason: expect.stringMatching(/batch 3/) });
    expect(
      run(["optimize", "--profile", "p1.csv", "--cores", "1", "--batch", "3"], { "/virtual/p1.csv": P1_CSV }).stdout,
    ).toMatch(/^Infeasible: /);
  });

  it.each([
    ["threads,batch\n1,1\n", /p\.csv: line 1: missing column "latency_ms"/],
    ["threads,batch,latency_ms\n1,1,10\n1,2,abc\n", /p\.csv: line 3: latency_ms "abc" is not a number/],
    ["threads,batch,latency_ms\n1,1,-2\n", /p\.csv: line 2: latency_ms must be a finite number > 0, got -2/],
    [
      "threads,batch,latency_ms\n1,1,10\n1,1,11\n",
      /p\.csv: line 3: duplicate cell threads=1, batch=1 \(first on line 2\)/,
    ],
  ])("a bad file exits 2 naming the line: %j", (text, message) => {
    const { code, stderr, stdout } = run(["optimize", "--profile", "p.csv", "--cores", "4", "--batch", "4"], {
      "/virtual/p.csv": text,
    });
    expect(code).toBe(EXIT.badFile);
    expect(stderr).toMatch(message);
    expect(stdout).toBe("");
  });

  it("an unreadable file exits 2", () => {
    const { code, stderr } = run(["optimize", "--profile", "nope.csv", "--cores", "4", "--batch", "4"]);
    expect(code).toBe(EXIT.badFile);
    expect(stderr).toMatch(/cannot read nope\.csv/);
  });

  it.each([
    [["optimize", "--profile", "p1.csv", "--cores", "0", "--batch", "4"], /--cores: must be an integer/],
    [["optimize", "--profile", "p1.csv", "--cores", "4", "--batch", "two"], /--batch: must be an integer/],
    [
      ["optimize", "--profile", "p1.csv", "--cores", "4", "--batch", "4", "--tie-tolerance=-1"],
      /--tie-tolerance: must be a finite number/,
    ],
    [["optimize", "--profile", "p1.csv", "--cores", "4"], /missing --batch/],
    [["plan", "--profile", "p1.csv", "--cores", "4", "--batch", "4"], /expected the command "optimize"/],
    [["optimize", "--profile", "p1.csv", "--cores", "4", "--batch", "4", "--turbo"], /Unknown option '--turbo'/],
  ])("bad arguments exit 1: %j", (argv, message) => {
    const { code, stderr } = run(argv, { "/virtual/p1.csv": P1_CSV });
    expect(code).toBe(EXIT.usage);
    expect(stderr).toMatch(message);
  });

  it("--help prints the usage", () => {
    expect(run(["--help"])).toMatchObject({
      code: EXIT.ok,
      stdout: expect.stringMatching(/^Usage: npm run -s packrat -- optimize/),
    });
  });
});

describe("the authors' measured profiles (fixtures), T = 16", () => {
  it.each(MODELS)(
    "%s: every B in 1…1024 is feasible and the optimum is ≤ both baselines wherever they exist",
    (model) => {
      const cells = parseProfileCsv(fixtureText(model));
      // 16 threads × 11 batch sizes 2⁰…2¹⁰.
      expect(cells).toHaveLength(176);
      const rows = optimumTable(cells, { cores: 16, maxBatch: 1024 }).rows;
      let compared = 0;
      for (const row of rows) {
        expect(row.latencyMs).not.toBeNull();
        for (const baseline of [row.allThreadsMs, row.oneThreadMs]) {
          if (baseline === null) continue;
          compared++;
          expect(row.latencyMs ?? Infinity).toBeLessThanOrEqual(baseline);
        }
      }
      // ⟨1,16,B⟩ exists at the 11 powers of two; the one-thread split exists where ⌈B/16⌉, ⌊B/16⌋ are profiled.
      expect(compared).toBeGreaterThanOrEqual(11);
    },
  );
});

describe("the CLI as a process (tsx), on the authors' profiles", () => {
  const execFileAsync = promisify(execFile);
  const cli = (args: string[]) =>
    execFileAsync(process.execPath, ["--import", "tsx", "src/cli/packrat.ts", ...args], { cwd: repoRoot }).then(
      ({ stdout }) => ({ code: 0, stdout, stderr: "" }),
      (error: { code?: number; stdout?: string; stderr?: string }) => ({
        code: error.code,
        stdout: error.stdout ?? "",
        stderr: error.stderr ?? "",
      }),
    );
  // One B per model: odd sizes (baselines missing), a power of two, B < T; --exact-cores on one.
  const cases = [
    { model: "bert", batch: 100, exactCores: false },
    { model: "gpt2", batch: 1000, exactCores: false },
    { model: "inception", batch: 12, exactCores: true },
    { model: "resnet", batch: 64, exactCores: false },
  ];

  it("prints JSON equal to the library's output for each profile, and exits 2 / 3 for a bad file / an infeasible B", async () => {
    const runs = await Promise.all([
      ...cases.map(({ model, batch, exactCores }) =>
        cli([
          "optimize",
          "--profile",
          `${fixtures}/${model}-cloudlab16.csv`,
          "--cores",
          "16",
          "--batch",
          String(batch),
          "--json",
          ...(exactCores ? ["--exact-cores"] : []),
        ]),
      ),
      cli(["optimize", "--profile", "src/cli/packrat.test.ts", "--cores", "16", "--batch", "4"]),
      // bert with one core: one instance, and b = 3 is not a profiled size.
      cli(["optimize", "--profile", `${fixtures}/bert-cloudlab16.csv`, "--cores", "1", "--batch", "3", "--json"]),
    ]);
    cases.forEach(({ model, batch, exactCores }, i) => {
      const result = runs[i];
      expect(result?.code).toBe(0);
      const expected = optimize(parseProfileCsv(fixtureText(model)), { cores: 16, batch, exactCores });
      expect(JSON.parse(result?.stdout ?? "")).toEqual(expected);
    });
    expect(runs[4]).toMatchObject({ code: EXIT.badFile, stderr: expect.stringMatching(/line 1: missing column/) });
    expect(runs[5]?.code).toBe(EXIT.infeasible);
    expect(JSON.parse(runs[5]?.stdout ?? "")).toMatchObject({ kind: "infeasible" });
  }, 60_000);
});
