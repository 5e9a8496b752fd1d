import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

// src/core is the pure centre (DESIGN.md): algorithms take data and return data.
const impureModules = [
  "fs",
  "node:fs",
  "fs/promises",
  "node:fs/promises",
  "child_process",
  "node:child_process",
  "net",
  "node:net",
  "http",
  "node:http",
  "https",
  "node:https",
  "worker_threads",
  "node:worker_threads",
  "os",
  "node:os",
  "pg",
  "onnxruntime-node",
  "react",
  "react-dom",
  "server-only",
];
const impurePatterns = ["next", "next/*", "@prisma/*", "@/server/*", "@/app/*", "@/components/*", "@/contracts/*"];
// The same rule for relative paths: no "../../server/…", and nothing of the apps.
const outsideCoreRelative = String.raw`^\.\.?/(.*/)?(server|app|components|contracts|generated|trpc|cli|apps)(/|$)`;

// src/contracts holds the shapes that cross a process: they are made of zod and src/core, nothing else (its tests
// may import vitest). oip-grpc.ts loads the .proto file (node:url, @grpc/proto-loader) and is the one exception.
const contractsAllowed = String.raw`^(?!(zod|\./[^.].*|\.\./core/.+|@/core/.+|@/contracts/.+)$)`;

// The dependency rules of docs/design.md ("what may import what"), one block per folder. `@/x` is the root's alias
// for src/x; the same edge written as a relative path is caught by `relative(...)`. Tests of a folder may reach
// further (harnesses, fixtures, the app routes they drive), so most blocks name production files only.
const tests = ["**/*.test.ts", "**/*.test.tsx", "**/*.spec.ts"];
const alias = (...folders) => folders.flatMap((f) => [`@/${f}`, `@/${f}/*`]);
const relative = (...folders) => String.raw`^\.\.?/(.*/)?(${folders.join("|")})(/|$)`;
const forbid = (message, { groups = [], regexes = [], allowTypeImports = false } = {}) => [
  "error",
  {
    patterns: [
      ...(groups.length ? [{ group: groups, message, allowTypeImports }] : []),
      ...regexes.map((regex) => ({ regex, message, allowTypeImports })),
    ],
  },
];
// Outside src/, the core, the contracts and the model zoo are packages: "@packrat/core/…", never a path into src/.
const deepIntoPackages = String.raw`^(\.\./)+src/(core|contracts|modelzoo)(/|$)`;
const packagesByName =
  "Import src/core, src/contracts and src/modelzoo as @packrat/core, @packrat/contracts and @packrat/modelzoo.";
// What an app's own code may not reach: any path into the root (src/, test/, scripts/ …) or the other app.
const outOfApp = String.raw`^(\.\./)+(src|test|scripts|bench|e2e|prisma)/`;
const appMessage =
  "The apps import only @packrat/core, @packrat/contracts and themselves; they meet the control plane over HTTP.";
// An app's tests may also use the model zoo, the root's test harness (test/) and the fixtures in src/lib and src/testing.
const outOfAppForTests = String.raw`^(\.\./)+src/(server|app|components|trpc|generated|cli|core|contracts|modelzoo)(/|$)`;
// The env modules: one per runtime (control plane, CLI, agent, load generator), and the tests' one handle.
const envModules = [
  "src/server/env.ts",
  "src/cli/env.ts",
  "apps/agent/src/env.ts",
  "apps/loadgen/src/env.ts",
  "test/test-env.ts",
];

const config = [
  ...nextVitals,
  ...nextTs,
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      ".data/**",
      "src/generated/**",
      "bench/results/**",
      "next-env.d.ts",
      "playwright-report/**",
      "test-results/**",
      "apps/*/dist/**",
    ],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.ts", "**/*.tsx", "**/*.mjs"],
    ignores: envModules,
    rules: {
      "no-restricted-properties": [
        "error",
        {
          object: "process",
          property: "env",
          message:
            "Read the environment through your runtime's env module (src/server/env.ts, src/cli/env.ts, apps/*/src/env.ts) or, in tests, test/test-env.ts.",
        },
      ],
    },
  },
  {
    files: ["src/lib/**/*.ts", "src/lib/**/*.tsx"],
    rules: {
      "no-restricted-imports": forbid(
        "src/lib holds helpers for pages and the CLI: src/core, src/contracts and itself only.",
        {
          groups: alias("server", "app", "components", "trpc", "cli", "testing", "generated"),
          regexes: [relative("server", "app", "components", "trpc", "cli", "testing", "generated", "apps")],
        },
      ),
    },
  },
  {
    files: ["src/modelzoo/**/*.ts"],
    rules: {
      "no-restricted-imports": forbid(
        "src/modelzoo builds graphs from src/core and src/lib/onnx: nothing of the server, the UI or the apps.",
        {
          groups: alias("server", "app", "components", "trpc", "cli", "testing", "generated", "contracts"),
          regexes: [
            relative("server", "app", "components", "trpc", "cli", "testing", "generated", "contracts", "apps"),
          ],
        },
      ),
    },
  },
  {
    files: ["src/components/**/*.ts", "src/components/**/*.tsx"],
    ignores: tests,
    rules: {
      // Types of the server are how tRPC works (the router's type); values never.
      "no-restricted-imports": forbid(
        "Components reach the server through tRPC only: import types from src/server, not values.",
        {
          groups: alias("server", "app", "cli", "testing", "generated"),
          regexes: [relative("server", "app", "cli", "testing", "generated", "apps")],
          allowTypeImports: true,
        },
      ),
    },
  },
  {
    files: ["src/trpc/**/*.ts", "src/trpc/**/*.tsx"],
    ignores: tests,
    rules: {
      "no-restricted-imports": forbid(
        "src/trpc is the dashboard's tRPC client: the server's router, never routes, components or the apps.",
        {
          groups: alias("app", "components", "cli", "testing"),
          regexes: [relative("app", "components", "cli", "testing", "apps")],
        },
      ),
    },
  },
  {
    files: ["src/server/**/*.ts"],
    ignores: tests,
    rules: {
      "no-restricted-imports": forbid(
        "src/server never imports routes, components or the apps: the agent is reached over HTTP.",
        {
          groups: alias("app", "components", "cli"),
          regexes: [relative("app", "components", "cli", "apps")],
        },
      ),
    },
  },
  {
    files: ["src/app/**/*.ts", "src/app/**/*.tsx"],
    ignores: tests,
    rules: {
      "no-restricted-imports": forbid(
        "Routes import the server, components, tRPC, src/lib, src/core and src/contracts; never the apps.",
        {
          groups: alias("cli", "testing"),
          regexes: [relative("cli", "testing", "apps")],
        },
      ),
    },
  },
  {
    files: ["src/cli/**/*.ts"],
    ignores: tests,
    rules: {
      "no-restricted-imports": forbid(
        "The CLI talks to the control plane over HTTP: no server, routes, components or apps.",
        {
          groups: alias("server", "app", "components", "trpc", "testing", "generated"),
          regexes: [relative("server", "app", "components", "trpc", "testing", "generated", "apps")],
        },
      ),
    },
  },
  {
    files: ["apps/agent/**/*.ts"],
    ignores: tests,
    rules: {
      "no-restricted-imports": forbid(appMessage, {
        groups: ["@/*", "@packrat/loadgen", "@packrat/loadgen/*", "@packrat/modelzoo", "@packrat/modelzoo/*"],
        regexes: [outOfApp, String.raw`^(\.\./)+loadgen/`],
      }),
    },
  },
  {
    files: ["apps/loadgen/**/*.ts"],
    ignores: tests,
    rules: {
      "no-restricted-imports": forbid(appMessage, {
        groups: ["@/*", "@packrat/agent", "@packrat/agent/*", "@packrat/modelzoo", "@packrat/modelzoo/*"],
        regexes: [outOfApp, String.raw`^(\.\./)+agent/`],
      }),
    },
  },
  {
    files: ["apps/**/*.test.ts"],
    rules: {
      "no-restricted-imports": forbid(`${packagesByName} An app's tests never import the control plane's code.`, {
        groups: ["@/*"],
        regexes: [outOfAppForTests],
      }),
    },
  },
  {
    files: ["scripts/**/*.ts", "bench/**/*.ts", "e2e/**/*.ts", "test/**/*.ts"],
    rules: {
      "no-restricted-imports": forbid(packagesByName, {
        groups: alias("core", "contracts", "modelzoo"),
        regexes: [deepIntoPackages],
      }),
    },
  },
  {
    files: ["src/core/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: impureModules.map((name) => ({
            name,
            message: "src/core is pure: no I/O, React, Prisma or ONNX Runtime.",
          })),
          patterns: [
            { group: impurePatterns, message: "src/core imports nothing of ours outside itself, and no frameworks." },
            { group: ["node:*", "onnxruntime-*"], message: "src/core is pure: no I/O, React, Prisma or ONNX Runtime." },
            {
              regex: outsideCoreRelative,
              message: "src/core imports nothing of ours outside itself, and no frameworks.",
            },
          ],
        },
      ],
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "src/core never reads the environment." },
      ],
      "no-restricted-globals": ["error", { name: "fetch", message: "src/core does no I/O." }],
    },
  },
  {
    files: ["src/contracts/**/*.ts"],
    ignores: ["src/contracts/**/*.test.ts", "src/contracts/oip-grpc.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            { regex: contractsAllowed, message: "src/contracts imports only zod, src/core and other contracts." },
          ],
        },
      ],
      "no-restricted-properties": [
        "error",
        { object: "process", property: "env", message: "src/contracts never reads the environment." },
      ],
    },
  },
];
export default config;
