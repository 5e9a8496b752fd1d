// Request bodies read with a ceiling: a declared Content-Length past it is refused before a byte is read, and a
// body without one (chunked) is counted while it streams in and dropped the moment it passes the limit, so no
// route ever holds more than its limit of one caller's bytes, and nothing is parsed until the whole body fits.
export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`the request body is larger than this route accepts (${limitBytes} bytes)`);
    this.name = "BodyTooLargeError";
  }
}

/** The whole body, or BodyTooLargeError as soon as it would pass `limitBytes`. */
export async function readLimitedBody(request: Request, limitBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limitBytes) {
    await request.body?.cancel().catch(() => {});
    throw new BodyTooLargeError(limitBytes);
  }
  if (!request.body) return new Uint8Array(new ArrayBuffer(0));
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(limitBytes);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(new ArrayBuffer(total));
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/** The body as text, limited as above. */
export async function readLimitedText(request: Request, limitBytes: number): Promise<string> {
  return new TextDecoder().decode(await readLimitedBody(request, limitBytes));
}

/** The same request with its body already read (and so bounded), for handlers that read it themselves. */
export async function withLimitedBody(request: Request, limitBytes: number): Promise<Request> {
  if (request.method === "GET" || request.method === "HEAD") return request;
  const body = await readLimitedBody(request, limitBytes);
  const headers = new Headers(request.headers);
  headers.delete("transfer-encoding");
  headers.set("content-length", String(body.byteLength));
  return new Request(request.url, {
    method: request.method,
    headers,
    body: body.byteLength ? body : null,
    signal: request.signal,
  });
}

/** 413 with the error shape every JSON route answers with. */
export function bodyTooLargeResponse(error: BodyTooLargeError, requestId?: string): Response {
  return Response.json(
    { error: { code: "PAYLOAD_TOO_LARGE", message: error.message } },
    {
      status: 413,
      headers: {
        "cache-control": "no-store",
        connection: "close",
        ...(requestId ? { "x-request-id": requestId } : {}),
      },
    },
  );
}
