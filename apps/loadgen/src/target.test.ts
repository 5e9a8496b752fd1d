import { describe, expect, it } from "vitest";
import { checkTarget, isLoopbackHost } from "./target";

describe("checkTarget", () => {
  it("accepts loopback targets: 127.0.0.0/8, ::1 and localhost", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "[::1]", "localhost", "LOCALHOST"]) {
      expect(checkTarget(`http://${host}:8000`).port).toBe("8000");
    }
    expect(isLoopbackHost("10.0.0.1")).toBe(false);
    expect(isLoopbackHost("127.0.0.1.example.com")).toBe(false);
  });

  it("refuses another host unless --allow-remote names exactly it", () => {
    expect(() => checkTarget("http://10.0.0.5:8000")).toThrow(
      expect.objectContaining({
        code: "remote_target",
        parameter: "--url",
        message: expect.stringMatching(/--allow-remote 10\.0\.0\.5/),
      }),
    );
    expect(() => checkTarget("http://10.0.0.5:8000", "10.0.0.6")).toThrow(
      expect.objectContaining({ code: "remote_target" }),
    );
    expect(checkTarget("http://agent-3.internal:8000", "AGENT-3.internal").hostname).toBe("agent-3.internal");
  });

  it("rejects what is not an http URL", () => {
    expect(() => checkTarget("127.0.0.1:8000")).toThrow(expect.objectContaining({ code: "invalid_url" }));
    expect(() => checkTarget("https://127.0.0.1:8000")).toThrow(/only http/);
    expect(() => checkTarget("http://user:pw@127.0.0.1")).toThrow(/credentials/);
  });
});
