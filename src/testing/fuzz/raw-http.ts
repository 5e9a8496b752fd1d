// HTTP/1.1 written and read by hand, so a fuzzer can send what fetch refuses to: lying Content-Lengths, raw
// UTF-8 in the request target, bodies cut off mid-way. One connection per request (Connection: close).
import { connect } from "node:net";

export interface RawHttpRequest {
  method: string;
  /** The request target as sent; non-ASCII characters go out as their UTF-8 bytes. */
  path: string;
  /** Sent verbatim, in order. Content-Length is added from the body unless a content-length or transfer-encoding is given. */
  headers: Array<[string, string]>;
  body: Buffer;
  /** Send only this many bytes of the (encoded) body, then close the sending side: a truncated upload. */
  sendBodyBytes?: number;
}

export interface RawHttpResponse {
  status: number;
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  body: Buffer;
}

export class RawHttpParseError extends Error {
  override readonly name = "RawHttpParseError";
  constructor(
    readonly code: "no_head" | "bad_status_line" | "bad_chunk",
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
  }
}

export function encodeHttpRequest(request: RawHttpRequest): { head: Buffer; body: Buffer } {
  const named = (n: string) => request.headers.some(([k]) => k.toLowerCase() === n);
  const lines = [`${request.method} ${request.path} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close"];
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  if (!named("content-length") && !named("transfer-encoding")) lines.push(`Content-Length: ${request.body.length}`);
  const head = Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "utf8");
  const body = request.sendBodyBytes === undefined ? request.body : request.body.subarray(0, request.sendBodyBytes);
  return { head, body };
}

function decodeChunked(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf("\r\n", at);
    if (eol < 0) throw new RawHttpParseError("bad_chunk", "body", `chunk size line at byte ${at} has no CRLF`);
    const size = Number.parseInt(data.subarray(at, eol).toString("latin1").split(";")[0]!.trim(), 16);
    if (!Number.isInteger(size) || size < 0)
      throw new RawHttpParseError("bad_chunk", "body", `bad chunk size at byte ${at}`);
    if (size === 0) return Buffer.concat(parts);
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/** Parses one complete response (as read until the server closed the connection). */
export function parseHttpResponse(data: Buffer): RawHttpResponse {
  const end = data.indexOf("\r\n\r\n");
  if (end < 0) throw new RawHttpParseError("no_head", "response", `no end of headers in ${data.length} bytes`);
  const [statusLine = "", ...headerLines] = data.subarray(0, end).toString("latin1").split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match)
    throw new RawHttpParseError(
      "bad_status_line",
      "response",
      `status line is ${JSON.stringify(statusLine.slice(0, 80))}`,
    );
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = data.subarray(end + 4);
  if (headers["transfer-encoding"]?.toLowerCase() === "chunked") body = decodeChunked(body);
  else if (headers["content-length"] !== undefined) body = body.subarray(0, Number(headers["content-length"]));
  return { status: Number(match[1]), headers, body };
}

export type RawHttpOutcome =
  | { kind: "response"; response: RawHttpResponse }
  /** The connection failed or closed without a parsable response. */
  | { kind: "transport"; detail: string };

/**
 * Sends one request on a fresh connection and reads until the server closes it. No time limit: a server that
 * never answers shows as a hung test (the thing a fuzzer is looking for), not as a silent pass.
 */
export function sendRawHttp(port: number, request: RawHttpRequest, host = "127.0.0.1"): Promise<RawHttpOutcome> {
  const { head, body } = encodeHttpRequest(request);
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const chunks: Buffer[] = [];
    let failure: string | undefined;
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    // A server may answer (413, 400) and close before it read everything we wrote: EPIPE/ECONNRESET on our side
    // is then expected, and whatever response arrived is still the outcome.
    socket.on("error", (error) => {
      failure ??= error.message;
    });
    const settle = () => {
      const data = Buffer.concat(chunks);
      if (data.length === 0) return resolve({ kind: "transport", detail: failure ?? "closed without a response" });
      try {
        resolve({ kind: "response", response: parseHttpResponse(data) });
      } catch (error) {
        resolve({ kind: "transport", detail: `${(error as Error).message}${failure ? ` (${failure})` : ""}` });
      }
    };
    // The server's FIN ends the answer (Connection: close); bytes we have not managed to send are dropped then.
    socket.on("end", () => {
      settle();
      socket.destroy();
    });
    socket.on("close", settle);
    socket.on("connect", () => {
      socket.write(head);
      if (body.length) socket.write(body);
      if (request.sendBodyBytes !== undefined) socket.end();
    });
  });
}
