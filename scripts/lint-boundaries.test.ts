// The folder rules of eslint.config.mjs fail a forbidden import: each case lints a one-line file placed (virtually)
// in src/core or src/contracts and expects no-restricted-imports.
import { ESLint } from "eslint";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");
const eslint = new ESLint({ cwd: root });

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return result!.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("import boundaries", () => {
  it("src/core imports nothing of the server, the app, the components, the apps, node:*, Prisma, Next or ONNX Runtime", async () => {
    for (const source of ["@/server/db/client", "../../server/db/client", "../../app/page", "../../components/x", "../../../apps/agent/src/env", "node:crypto", "@prisma/adapter-pg", "next/server", "onnxruntime-node", "@/contracts/host-topology"]) {
      expect((await restrictedImports("src/core/fixture/bad.ts", `import { x } from "${source}";\nexport const y = x;\n`)).length, source).toBeGreaterThan(0);
    }
  });

  it("src/core may import itself", async () => {
    expect(await restrictedImports("src/core/fixture/good.ts", `import { x } from "../topology/types";\nimport { z } from "@/core/estimator/params";\nexport const y = [x, z];\n`)).toEqual([]);
  });

  it("src/contracts imports only zod, src/core and other contracts", async () => {
    for (const source of ["@/server/env", "../server/env", "node:fs", "@prisma/client", "next/server", "../../apps/agent/src/env"]) {
      expect((await restrictedImports("src/contracts/bad.ts", `import { x } from "${source}";\nexport const y = x;\n`)).length, source).toBeGreaterThan(0);
    }
    expect(await restrictedImports("src/contracts/good.ts", `import { z } from "zod";\nimport { a } from "../core/topology/types";\nimport { b } from "./serving-plan";\nexport const y = [z, a, b];\n`)).toEqual([]);
  });
});
