import { describe, expect, it } from "vitest";
import { classifyTransportError } from "./outcome";

describe("classifyTransportError", () => {
  it("maps socket error codes to refused / reset / timed out, anything else to other", () => {
    const error = (code: string) => Object.assign(new Error(code), { code });
    expect(classifyTransportError(error("ECONNREFUSED"))).toBe("refused");
    expect(classifyTransportError(error("ECONNRESET"))).toBe("reset");
    expect(classifyTransportError(error("EPIPE"))).toBe("reset");
    expect(classifyTransportError(error("ETIMEDOUT"))).toBe("timed_out");
    expect(classifyTransportError(error("EHOSTUNREACH"))).toBe("other");
    expect(classifyTransportError("not an error")).toBe("other");
  });

  it("our own deadline wins over whatever error destroying the socket raised", () => {
    expect(classifyTransportError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }), true)).toBe(
      "timed_out",
    );
  });
});
