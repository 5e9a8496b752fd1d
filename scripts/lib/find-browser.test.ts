import { describe, expect, it } from "vitest";
import {
  ensureBrowser,
  findBrowser,
  installers,
  noBrowserMessage,
  playwrightCachePaths,
  type BrowserProbe,
  type BrowserSearch,
} from "./find-browser";

const search: BrowserSearch = {
  systemPaths: ["/usr/lib/chromium/chromium", "/usr/bin/chromium"],
  pathDirs: ["/home/u/bin", "", "/opt/bin"],
  commandNames: ["chromium", "chromium-browser"],
  browsersPath: "/home/u/.cache/ms-playwright",
  chromiumRevision: "1255",
  playwrightCli: ["/usr/bin/node", "/repo/node_modules/playwright/cli.js"],
  isRoot: true,
  isDebian: true,
};

/** A machine with the given executables; each command run is recorded, and may "install" files. */
class FakeMachine implements BrowserProbe {
  readonly runs: string[] = [];
  constructor(
    readonly files: Set<string>,
    private readonly effects: Record<string, { status: number; installs?: string }> = {},
  ) {}
  isExecutable(path: string): boolean {
    return this.files.has(path);
  }
  run(command: string, args: string[]): number | null {
    const line = [command, ...args].join(" ");
    this.runs.push(line);
    const effect = this.effects[line];
    if (!effect) return null; // not installed on this machine
    if (effect.installs) this.files.add(effect.installs);
    return effect.status;
  }
}

const cachedChrome = "/home/u/.cache/ms-playwright/chromium-1255/chrome-linux64/chrome";
const playwrightInstall = "/usr/bin/node /repo/node_modules/playwright/cli.js install chromium";

describe("findBrowser", () => {
  it("prefers a fixed system path, in the order given, over PATH and the cache", () => {
    const machine = new FakeMachine(new Set(["/usr/bin/chromium", "/opt/bin/chromium", cachedChrome]));
    expect(findBrowser(search, machine)).toEqual({ executable: "/usr/bin/chromium", source: "system" });
  });

  it("finds chromium on PATH (skipping an empty PATH entry), first directory first", () => {
    const machine = new FakeMachine(new Set(["/opt/bin/chromium-browser", "/opt/bin/chromium", cachedChrome]));
    expect(findBrowser(search, machine)?.executable).toBe("/opt/bin/chromium");
    expect(findBrowser(search, new FakeMachine(new Set(["chromium"])))).toBeUndefined();
  });

  it("takes Playwright's cached build of its own revision only, the full browser before the headless shell", () => {
    const shell =
      "/home/u/.cache/ms-playwright/chromium_headless_shell-1255/chrome-headless-shell-linux64/chrome-headless-shell";
    expect(findBrowser(search, new FakeMachine(new Set([shell, cachedChrome])))).toEqual({
      executable: cachedChrome,
      source: "playwright-cache",
    });
    expect(findBrowser(search, new FakeMachine(new Set([shell])))?.executable).toBe(shell);
    // Another Playwright's revision is not this one's browser.
    expect(
      findBrowser(
        search,
        new FakeMachine(new Set(["/home/u/.cache/ms-playwright/chromium-1200/chrome-linux64/chrome"])),
      ),
    ).toBeUndefined();
    expect(playwrightCachePaths(search).every((p) => p.startsWith(search.browsersPath))).toBe(true);
  });
});

describe("installers", () => {
  it("Playwright's download first, then Debian's package when root on Debian", () => {
    expect(installers(search).map((i) => i.name)).toEqual(["playwright install chromium", "apt-get install chromium"]);
    expect(installers({ ...search, isRoot: false }).map((i) => i.name)).toEqual(["playwright install chromium"]);
    expect(installers({ ...search, isDebian: false }).map((i) => i.name)).toEqual(["playwright install chromium"]);
  });
});

describe("ensureBrowser", () => {
  it("runs nothing when a browser is already there", () => {
    const machine = new FakeMachine(new Set([cachedChrome]));
    expect(ensureBrowser(search, machine)).toEqual({
      ok: true,
      found: { executable: cachedChrome, source: "playwright-cache" },
    });
    expect(machine.runs).toEqual([]);
  });

  it("stops at Playwright's download when it installs the browser", () => {
    const machine = new FakeMachine(new Set(), { [playwrightInstall]: { status: 0, installs: cachedChrome } });
    expect(ensureBrowser(search, machine)).toMatchObject({
      ok: true,
      installedBy: "playwright install chromium",
      found: { executable: cachedChrome },
    });
    expect(machine.runs).toEqual([playwrightInstall]);
  });

  it("falls back to apt-get (update, then install) when the download fails", () => {
    const machine = new FakeMachine(new Set(), {
      [playwrightInstall]: { status: 1 },
      "apt-get update -qq": { status: 0 },
      "apt-get install -y -qq chromium": { status: 0, installs: "/usr/lib/chromium/chromium" },
    });
    const logged: string[] = [];
    expect(ensureBrowser(search, machine, (l) => logged.push(l))).toMatchObject({
      ok: true,
      installedBy: "apt-get install chromium",
      found: { source: "system" },
    });
    expect(machine.runs).toEqual([playwrightInstall, "apt-get update -qq", "apt-get install -y -qq chromium"]);
    expect(logged).toContain("`playwright install chromium` failed");
  });

  it("a failed apt-get update skips its install; all failing gives the one-line message", () => {
    const machine = new FakeMachine(new Set(), {
      [playwrightInstall]: { status: 1 },
      "apt-get update -qq": { status: 100 },
    });
    const result = ensureBrowser(search, machine);
    expect(result).toEqual({
      ok: false,
      tried: ["playwright install chromium", "apt-get install chromium"],
      message: noBrowserMessage(search),
    });
    expect(machine.runs).toEqual([playwrightInstall, "apt-get update -qq"]);
  });

  it("an installer that exits 0 yet leaves no browser does not count as found", () => {
    const machine = new FakeMachine(new Set(), { [playwrightInstall]: { status: 0 } });
    expect(ensureBrowser({ ...search, isRoot: false }, machine)).toMatchObject({
      ok: false,
      tried: ["playwright install chromium"],
    });
  });
});

describe("noBrowserMessage", () => {
  it("is one line naming the exact command for the machine", () => {
    expect(noBrowserMessage(search)).toBe(
      "No Chromium for the end-to-end tests, and none could be installed: run `apt-get install -y chromium` (or `npx playwright install chromium` where its download host is reachable), then `npm test` again.",
    );
    expect(noBrowserMessage({ ...search, isRoot: false })).toContain("run `sudo apt-get install -y chromium`");
    expect(noBrowserMessage({ ...search, isDebian: false })).toBe(
      "No Chromium for the end-to-end tests, and none could be installed: run `npx playwright install --with-deps chromium`, then `npm test` again.",
    );
    for (const s of [search, { ...search, isRoot: false }, { ...search, isDebian: false }])
      expect(noBrowserMessage(s)).not.toContain("\n");
  });
});
