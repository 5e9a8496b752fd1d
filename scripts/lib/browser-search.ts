// The real machine behind find-browser: where this Playwright keeps its browsers, which revision it drives,
// whether we are root on Debian, and a probe that touches the real file system and runs real commands.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import type { BrowserProbe, BrowserSearch } from "./find-browser";

const require = createRequire(import.meta.url);
// The Playwright the tests use, and the playwright-core it drives (resolved from it, as Node would).
const playwrightDir = join(require.resolve("playwright/package.json"), "..");
const coreDir = join(createRequire(join(playwrightDir, "package.json")).resolve("playwright-core/package.json"), "..");

/** Where Debian and most distributions install Chromium. */
export const SYSTEM_CHROMIUM_PATHS = ["/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser"];

export function playwrightChromiumRevision(): string {
  const browsers = JSON.parse(readFileSync(join(coreDir, "browsers.json"), "utf8")) as {
    browsers: { name: string; revision: string }[];
  };
  const chromium = browsers.browsers.find((b) => b.name === "chromium");
  if (!chromium) throw new Error("playwright-core/browsers.json names no chromium");
  return chromium.revision;
}

/** Playwright's default cache on Linux, unless PLAYWRIGHT_BROWSERS_PATH says otherwise ("0": inside node_modules). */
export function playwrightBrowsersPath(env: Record<string, string | undefined>): string {
  const configured = env.PLAYWRIGHT_BROWSERS_PATH;
  if (configured === "0") return join(coreDir, ".local-browsers");
  if (configured) return configured;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), ".cache"), "ms-playwright");
}

export function realBrowserSearch(
  env: Record<string, string | undefined>,
  overrides: Partial<BrowserSearch> = {},
): BrowserSearch {
  return {
    systemPaths: SYSTEM_CHROMIUM_PATHS,
    pathDirs: (env.PATH ?? "").split(delimiter),
    commandNames: ["chromium", "chromium-browser"],
    browsersPath: playwrightBrowsersPath(env),
    chromiumRevision: playwrightChromiumRevision(),
    playwrightCli: [process.execPath, join(playwrightDir, "cli.js")],
    isRoot: process.getuid?.() === 0,
    isDebian: existsSync("/etc/debian_version"),
    ...overrides,
  };
}

export function realProbe(env: Record<string, string | undefined>): BrowserProbe {
  return {
    isExecutable(path) {
      try {
        if (!statSync(path).isFile()) return false;
        accessSync(path, constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    run(command, args, extraEnv) {
      const result = spawnSync(command, args, {
        stdio: ["ignore", "inherit", "inherit"],
        env: { ...env, ...extraEnv } as NodeJS.ProcessEnv,
      });
      return result.error ? null : result.status;
    },
  };
}
