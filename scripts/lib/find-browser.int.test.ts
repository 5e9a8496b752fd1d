// The browser discovery on the real file system with real processes, in an isolated environment: a temporary
// PATH holding only a fake apt-get (a script that records its call and "installs" a Chromium stand-in), a
// temporary Playwright cache, and Playwright's real CLI pointed at a download host that refuses connections.
// The machine's own browser is never looked at or touched.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { realBrowserSearch, realProbe } from "./browser-search";
import { ensureBrowser, noBrowserMessage } from "./find-browser";

let root: string;
let bin: string;
let cache: string;
let calls: string;
let env: Record<string, string>;

function fakeAptGet(exitStatus: number): void {
  // POSIX sh with builtins only (PATH holds nothing else); records each call with DEBIAN_FRONTEND.
  writeFileSync(
    join(bin, "apt-get"),
    [
      "#!/bin/sh",
      `printf '%s DEBIAN_FRONTEND=%s\\n' "$*" "$DEBIAN_FRONTEND" >> '${calls}'`,
      `[ ${exitStatus} -ne 0 ] && exit ${exitStatus}`,
      `if [ "$1" = install ]; then printf '#!/bin/sh\\nexit 0\\n' > '${join(bin, "chromium")}'; /bin/chmod 755 '${join(bin, "chromium")}'; fi`,
      "exit 0",
      "",
    ].join("\n"),
  );
  chmodSync(join(bin, "apt-get"), 0o755);
}

function search() {
  // Root on Debian as far as the search knows; no fixed system paths, so only the temporary PATH is searched.
  return realBrowserSearch(env, { systemPaths: [], isRoot: true, isDebian: true });
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "packrat-find-browser-"));
  bin = join(root, "bin");
  cache = join(root, "ms-playwright");
  calls = join(root, "apt-get.calls");
  mkdirSync(bin);
  env = { PATH: bin, HOME: root, PLAYWRIGHT_BROWSERS_PATH: cache, PLAYWRIGHT_DOWNLOAD_HOST: "http://127.0.0.1:9" };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("ensureBrowser in an isolated environment", () => {
  it("uses the browser in the temporary Playwright cache and runs no installer", () => {
    fakeAptGet(0);
    const s = search();
    const chrome = join(cache, `chromium-${s.chromiumRevision}`, "chrome-linux64", "chrome");
    mkdirSync(join(chrome, ".."), { recursive: true });
    writeFileSync(chrome, "#!/bin/sh\n");
    chmodSync(chrome, 0o755);
    expect(ensureBrowser(s, realProbe(env))).toEqual({
      ok: true,
      found: { executable: chrome, source: "playwright-cache" },
    });
    expect(existsSync(calls)).toBe(false);
  });

  it("when Playwright's download fails, installs the Debian package with the fake apt-get and finds it on PATH", () => {
    fakeAptGet(0);
    const logged: string[] = [];
    const result = ensureBrowser(search(), realProbe(env), (l) => logged.push(l));
    expect(result).toEqual({
      ok: true,
      installedBy: "apt-get install chromium",
      found: { executable: join(bin, "chromium"), source: "system" },
    });
    expect(logged).toEqual([
      "no Chromium found; trying `playwright install chromium`",
      "`playwright install chromium` failed",
      "no Chromium found; trying `apt-get install chromium`",
    ]);
    expect(readFileSync(calls, "utf8")).toBe(
      "update -qq DEBIAN_FRONTEND=noninteractive\ninstall -y -qq chromium DEBIAN_FRONTEND=noninteractive\n",
    );
  });

  it("when every installer fails, says in one line what to run", () => {
    fakeAptGet(100);
    const result = ensureBrowser(search(), realProbe(env));
    expect(result).toEqual({
      ok: false,
      tried: ["playwright install chromium", "apt-get install chromium"],
      message: noBrowserMessage(search()),
    });
    expect(readFileSync(calls, "utf8")).toBe("update -qq DEBIAN_FRONTEND=noninteractive\n");
    expect(existsSync(join(bin, "chromium"))).toBe(false);
  });
});
