// The folder rules of eslint.config.mjs (docs/design.md, "what may import what") fail a forbidden import and let an
// allowed one through: each case lints a small file placed (virtually) in a folder and reads the rule's messages.
import { ESLint } from "eslint";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const eslint = new ESLint({ cwd: root });

async function messages(rule: string, filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}
const importing = (source: string, kind = "") => `import ${kind}{ x } from "${source}";\nexport const y = x;\n`;
const restricted = (filePath: string, code: string) => messages("no-restricted-imports", filePath, code);

/** Each forbidden source fails in `filePath`; each allowed one passes. */
async function expectRule(filePath: string, forbidden: string[], allowed: string[]): Promise<void> {
  for (const source of forbidden)
    expect((await restricted(filePath, importing(source))).length, `${filePath} ← ${source}`).toBeGreaterThan(0);
  for (const source of allowed)
    expect(await restricted(filePath, importing(source)), `${filePath} ← ${source}`).toEqual([]);
}

describe("import boundaries", () => {
  it("src/core imports nothing of the server, the app, the components, the apps, node:*, Prisma, Next or ONNX Runtime", async () => {
    await expectRule(
      "src/core/fixture/bad.ts",
      [
        "@/server/db/client",
        "../../server/db/client",
        "../../app/page",
        "../../components/x",
        "../../../apps/agent/src/env",
        "node:crypto",
        "@prisma/adapter-pg",
        "next/server",
        "onnxruntime-node",
        "@/contracts/host-topology",
      ],
      ["../topology/types", "@/core/estimator/params"],
    );
  });

  it("src/contracts imports only zod, src/core and other contracts", async () => {
    await expectRule(
      "src/contracts/bad.ts",
      ["@/server/env", "../server/env", "node:fs", "@prisma/client", "next/server", "../../apps/agent/src/env"],
      ["zod", "../core/topology/types", "./serving-plan"],
    );
  });

  it("src/lib imports src/core and src/contracts, not the server, the UI, the CLI or the apps", async () => {
    await expectRule(
      "src/lib/fixture/x.ts",
      [
        "@/server/db/client",
        "../../server/env",
        "@/components/nav-links",
        "@/app/layout",
        "@/trpc/react",
        "@/cli/packrat",
        "../../../apps/agent/src/env",
      ],
      ["@/core/stats/histogram", "@/contracts/host-topology", "../onnx/proto"],
    );
  });

  it("src/modelzoo imports src/core and src/lib, nothing of the server, the UI or the apps", async () => {
    await expectRule(
      "src/modelzoo/x.ts",
      ["@/server/env", "../server/env", "@/components/nav-links", "../../apps/agent/src/env"],
      ["@/core/stats/prng", "@/lib/onnx/proto", "./graph-builder"],
    );
  });

  it("src/components takes types from src/server, never values", async () => {
    const file = "src/components/fixture/x.tsx";
    for (const source of [
      "@/server/db/client",
      "../../server/services/cost-report",
      "@/app/layout",
      "@/generated/prisma/client",
      "../../../apps/agent/src/env",
    ]) {
      expect((await restricted(file, importing(source))).length, source).toBeGreaterThan(0);
    }
    expect(await restricted(file, importing("@/server/api/root", "type "))).toEqual([]);
    expect(await restricted(file, importing("@/core/security/roles"))).toEqual([]);
    expect(await restricted(file, importing("@/trpc/react"))).toEqual([]);
    expect(await restricted(file, importing("@/lib/planning/format"))).toEqual([]);
  });

  it("src/trpc imports the server's router, not routes, components or the apps", async () => {
    await expectRule(
      "src/trpc/x.tsx",
      ["@/app/layout", "@/components/nav-links", "../../apps/agent/src/env"],
      ["@/server/api/root", "./batch-limit"],
    );
  });

  it("src/server never imports routes, components or the apps (tests may drive them)", async () => {
    await expectRule(
      "src/server/services/x.ts",
      ["@/app/api/health/route", "../../app/api/health/route", "@/components/nav-links", "../../../apps/agent/src/env"],
      ["@/core/stats/histogram", "@/contracts/agent-protocol", "@/trpc/batch-limit", "../db/client"],
    );
    expect(
      await restricted("src/server/services/x.int.test.ts", importing("../../../apps/agent/src/test-agent-process")),
    ).toEqual([]);
  });

  it("src/app imports the server, components and tRPC, never the apps", async () => {
    await expectRule(
      "src/app/fixture/page.tsx",
      ["../../../apps/agent/src/env", "@/cli/packrat"],
      ["@/server/api/root", "@/components/nav-links", "@/trpc/server"],
    );
  });

  it("src/cli never imports the server, routes or components", async () => {
    await expectRule(
      "src/cli/x.ts",
      ["@/server/env", "../server/env", "@/components/nav-links", "../../apps/agent/src/env"],
      ["@/core/optimizer/optimizer", "@/modelzoo/registry", "./env"],
    );
  });

  it("apps/agent imports @packrat/core, @packrat/contracts and itself only", async () => {
    await expectRule(
      "apps/agent/src/fixture/x.ts",
      [
        "../../../../src/server/env",
        "../../../../src/core/stats/histogram",
        "@/core/stats/histogram",
        "../../../loadgen/src/cli",
        "@packrat/loadgen/src/cli",
        "@packrat/modelzoo/tiny-models",
        "../../../../test/control-plane-harness",
      ],
      ["@packrat/core/stats/histogram", "@packrat/contracts/agent-protocol", "../env", "./y"],
    );
  });

  it("apps/loadgen imports @packrat/core, @packrat/contracts and itself only", async () => {
    await expectRule(
      "apps/loadgen/src/x.ts",
      ["../../../src/contracts/oip-datatypes", "../../agent/src/env", "@packrat/agent/src/env", "@/server/env"],
      ["@packrat/core/stats/histogram", "@packrat/contracts/oip-datatypes", "./env"],
    );
  });

  it("an app's tests may also use the model zoo, the test harness and the fixtures, never the control plane's code", async () => {
    await expectRule(
      "apps/agent/src/x.int.test.ts",
      [
        "../../../src/server/env",
        "../../../src/core/stats/histogram",
        "../../../src/modelzoo/tiny-models",
        "@/server/env",
      ],
      [
        "@packrat/modelzoo/tiny-models",
        "../../../test/control-plane-harness",
        "../../../src/lib/onnx/wild-models",
        "../../loadgen/src/oip-client",
      ],
    );
  });

  it("scripts, bench, e2e and test import the packages by name, not by a path into src/", async () => {
    for (const file of ["scripts/x.ts", "bench/x.bench.ts", "e2e/x.spec.ts", "test/x.ts"]) {
      await expectRule(
        file,
        ["../src/core/stats/histogram", "@/contracts/agent-protocol", "../src/modelzoo/tiny-models"],
        ["@packrat/core/stats/histogram", "@packrat/modelzoo/tiny-models", "../src/server/env"],
      );
    }
  });
});

describe("the environment", () => {
  const readsEnv = "export const port = process.env.PORT;\n";
  const envReads = (filePath: string) => messages("no-restricted-properties", filePath, readsEnv);

  it("is read only by the env modules", async () => {
    for (const file of [
      "src/server/services/x.ts",
      "src/app/api/x/route.ts",
      "src/lib/x.ts",
      "apps/agent/src/attached/x.ts",
      "apps/loadgen/src/x.ts",
      "scripts/start.ts",
      "src/core/x.ts",
      "src/contracts/x.ts",
    ]) {
      expect((await envReads(file)).length, file).toBeGreaterThan(0);
    }
    for (const file of ["src/server/env.ts", "src/cli/env.ts", "apps/agent/src/env.ts", "apps/loadgen/src/env.ts"])
      expect(await envReads(file), file).toEqual([]);
  });

  it("is reached by tests through test/test-env.ts only", async () => {
    for (const file of [
      "src/server/services/x.int.test.ts",
      "apps/agent/src/x.int.test.ts",
      "e2e/x.spec.ts",
      "bench/x.bench.ts",
      "test/x.ts",
    ]) {
      expect((await envReads(file)).length, file).toBeGreaterThan(0);
    }
    expect(await envReads("test/test-env.ts")).toEqual([]);
  });
});
