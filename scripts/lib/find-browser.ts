// Finding a Chromium for the end-to-end tests, so that `npm test` on a fresh machine needs no manual step:
// the system's Chromium first (Debian's is what CI installs), else the browser Playwright keeps in its cache,
// else an installer, tried in order: Playwright's own download where its host is reachable, then the Debian
// package when running as root. When all fail, one line says exactly what to run.
// The file system and the commands are behind BrowserProbe, so the order is unit-tested with a fake and the
// real thing runs in an isolated environment in the integration test.
import { join } from "node:path";

export interface BrowserProbe {
  /** True when `path` is an executable file. */
  isExecutable(path: string): boolean;
  /** Runs a command to completion (output goes to the user's terminal); its exit status, null when it could not start. */
  run(command: string, args: string[], env?: Record<string, string>): number | null;
}

export interface BrowserSearch {
  /** Fixed places a distribution puts Chromium. */
  systemPaths: string[];
  /** The directories of PATH, searched for the names in `commandNames`. */
  pathDirs: string[];
  commandNames: string[];
  /** Playwright's browser cache (PLAYWRIGHT_BROWSERS_PATH, or its default). */
  browsersPath: string;
  /** The Chromium revision this Playwright drives (from playwright-core's browsers.json). */
  chromiumRevision: string;
  /** How to run Playwright's CLI: [command, ...args before `install chromium`]. */
  playwrightCli: string[];
  isRoot: boolean;
  isDebian: boolean;
}

export interface BrowserFound {
  executable: string;
  source: "system" | "playwright-cache";
}
export interface Installer {
  name: string;
  steps: { command: string; args: string[]; env?: Record<string, string> }[];
}

export type EnsureResult =
  { ok: true; found: BrowserFound; installedBy?: string } | { ok: false; tried: string[]; message: string };

export function findSystemChromium(search: BrowserSearch, probe: BrowserProbe): string | undefined {
  const onPath = search.commandNames.flatMap((name) =>
    search.pathDirs.filter((dir) => dir !== "").map((dir) => join(dir, name)),
  );
  return [...search.systemPaths, ...onPath].find((path) => probe.isExecutable(path));
}

/** Playwright's own build of the revision it drives; the full browser before the headless shell. */
export function playwrightCachePaths(search: BrowserSearch): string[] {
  const chromium = join(search.browsersPath, `chromium-${search.chromiumRevision}`);
  const shell = join(search.browsersPath, `chromium_headless_shell-${search.chromiumRevision}`);
  return [
    join(chromium, "chrome-linux64", "chrome"),
    join(chromium, "chrome-linux", "chrome"),
    join(shell, "chrome-headless-shell-linux64", "chrome-headless-shell"),
    join(shell, "chrome-linux", "headless_shell"),
  ];
}

export function findBrowser(search: BrowserSearch, probe: BrowserProbe): BrowserFound | undefined {
  const system = findSystemChromium(search, probe);
  if (system) return { executable: system, source: "system" };
  const cached = playwrightCachePaths(search).find((path) => probe.isExecutable(path));
  return cached ? { executable: cached, source: "playwright-cache" } : undefined;
}

export function installers(search: BrowserSearch): Installer[] {
  const list: Installer[] = [
    {
      name: "playwright install chromium",
      steps: [{ command: search.playwrightCli[0]!, args: [...search.playwrightCli.slice(1), "install", "chromium"] }],
    },
  ];
  if (search.isDebian && search.isRoot) {
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    list.push({
      name: "apt-get install chromium",
      steps: [
        { command: "apt-get", args: ["update", "-qq"], env },
        { command: "apt-get", args: ["install", "-y", "-qq", "chromium"], env },
      ],
    });
  }
  return list;
}

/** The one line printed when nothing was found and nothing could be installed. */
export function noBrowserMessage(search: BrowserSearch): string {
  const debian = search.isDebian ? `${search.isRoot ? "" : "sudo "}apt-get install -y chromium` : undefined;
  const playwright = search.isDebian
    ? "npx playwright install chromium"
    : "npx playwright install --with-deps chromium";
  return `No Chromium for the end-to-end tests, and none could be installed: run \`${debian ?? playwright}\`${debian ? ` (or \`${playwright}\` where its download host is reachable)` : ""}, then \`npm test\` again.`;
}

export function ensureBrowser(
  search: BrowserSearch,
  probe: BrowserProbe,
  log: (line: string) => void = () => {},
): EnsureResult {
  const present = findBrowser(search, probe);
  if (present) return { ok: true, found: present };
  const tried: string[] = [];
  for (const installer of installers(search)) {
    log(`no Chromium found; trying \`${installer.name}\``);
    tried.push(installer.name);
    const ok = installer.steps.every((step) => probe.run(step.command, step.args, step.env) === 0);
    // A step can succeed and still leave no browser where we look (or fail after installing one): look again.
    const found = findBrowser(search, probe);
    if (found) return { ok: true, found, installedBy: installer.name };
    log(`\`${installer.name}\` ${ok ? "finished but left no Chromium where the tests look" : "failed"}`);
  }
  return { ok: false, tried, message: noBrowserMessage(search) };
}
