import { describe, expect, it } from "vitest";
import { encodeHttpRequest, parseHttpResponse, RawHttpParseError } from "./raw-http";

describe("encodeHttpRequest", () => {
  it("writes the request line, Host, Connection: close, the headers in order and a Content-Length from the body", () => {
    const { head, body } = encodeHttpRequest({
      method: "POST",
      path: "/v2/models/m/infer",
      headers: [["Content-Type", "application/json"]],
      body: Buffer.from("{}"),
    });
    expect(head.toString()).toBe(
      "POST /v2/models/m/infer HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n",
    );
    expect(body.toString()).toBe("{}");
  });

  it("keeps a given Content-Length (even a lie) or Transfer-Encoding, sends only sendBodyBytes, and UTF-8 in the target", () => {
    const lie = encodeHttpRequest({
      method: "POST",
      path: "/é",
      headers: [["Content-Length", "1"]],
      body: Buffer.from("abcdef"),
      sendBodyBytes: 4,
    });
    expect(lie.head.toString("utf8")).toBe(
      "POST /é HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 1\r\n\r\n",
    );
    expect(lie.head.includes(Buffer.from([0xc3, 0xa9]))).toBe(true); // é as its two UTF-8 bytes
    expect(lie.body.toString()).toBe("abcd");
    const chunked = encodeHttpRequest({
      method: "POST",
      path: "/",
      headers: [["Transfer-Encoding", "chunked"]],
      body: Buffer.from("5\r\nab"),
    });
    expect(chunked.head.toString()).not.toContain("Content-Length");
  });
});

describe("parseHttpResponse", () => {
  it("reads status, lower-cased headers and a Content-Length body", () => {
    const r = parseHttpResponse(
      Buffer.from(
        'HTTP/1.1 415 Unsupported Media Type\r\nContent-Type: application/json\r\ncontent-length: 13\r\n\r\n{"error":"x"}trailing',
      ),
    );
    expect(r.status).toBe(415);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.body.toString()).toBe('{"error":"x"}');
  });

  it("decodes a chunked body (5 + 3 bytes, then the 0 chunk)", () => {
    const r = parseHttpResponse(
      Buffer.from("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n3;x=y\r\nabc\r\n0\r\n\r\n"),
    );
    expect(r.body.toString()).toBe("helloabc");
  });

  it("takes a body without length up to the end of the data (the server closed the connection)", () => {
    expect(
      parseHttpResponse(Buffer.from("HTTP/1.0 400 Bad Request\r\nConnection: close\r\n\r\nbad")).body.toString(),
    ).toBe("bad");
  });

  it("refuses what is not an HTTP response, naming the problem", () => {
    expect(() => parseHttpResponse(Buffer.from("HTTP/1.1 200 OK\r\n"))).toThrow(RawHttpParseError);
    expect(() => parseHttpResponse(Buffer.from("SSH-2.0\r\n\r\n"))).toThrow(/status line/);
    expect(() => parseHttpResponse(Buffer.from("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"))).toThrow(
      /chunk/,
    );
  });
});
