import { existsSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { removeOrtDebugLog } from "./ort-debug-log";

describe("removeOrtDebugLog", () => {
  it("removes /tmp/mat-debug-<pid>.log for the pid given and tolerates its absence", () => {
    const fakePid = 2_000_000_000 + (process.pid % 1000); // beyond any real pid_max, so no real process's file
    const path = `/tmp/mat-debug-${fakePid}.log`;
    writeFileSync(path, "");
    removeOrtDebugLog(fakePid);
    expect(existsSync(path)).toBe(false);
    expect(() => removeOrtDebugLog(fakePid)).not.toThrow();
  });
});
