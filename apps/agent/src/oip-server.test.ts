import { describe, expect, it } from "vitest";
import { inferContentProblem } from "./oip-server";

describe("inferContentProblem: which infer bodies are read", () => {
  it("accepts JSON, the binary extension, no type at all, and the defaults of fetch and curl -d", () => {
    for (const type of [
      undefined,
      "",
      "application/json",
      "Application/JSON; charset=UTF-8",
      "application/octet-stream",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
    ]) {
      expect(inferContentProblem({ "content-type": type })).toBeUndefined();
    }
    expect(inferContentProblem({ "content-encoding": "identity" })).toBeUndefined();
  });

  it("refuses other media types, charsets other than UTF-8, and compressed bodies, saying which", () => {
    expect(inferContentProblem({ "content-type": "multipart/form-data; boundary=x" })).toMatch(
      /Content-Type multipart\/form-data is not supported/,
    );
    expect(inferContentProblem({ "content-type": "application/xml" })).toMatch(/application\/xml/);
    expect(inferContentProblem({ "content-type": "application/json; charset=utf-16" })).toMatch(
      /charset utf-16 is not supported/,
    );
    expect(inferContentProblem({ "content-encoding": "gzip" })).toMatch(/Content-Encoding gzip is not supported/);
  });
});
