import { describe, expect, it } from "vitest";
import { acceptedOrigins, mutationRejection } from "./request-guard";

const publicUrl = "http://localhost:3100";
const request = (init: { method?: string; type?: string; origin?: string }) => {
  const headers = new Headers();
  if (init.type) headers.set("content-type", init.type);
  if (init.origin) headers.set("origin", init.origin);
  // A string body brings its own text/plain content type: send one only with an explicit type.
  return new Request("http://localhost:3100/api/trpc/users.create", {
    method: init.method ?? "POST",
    headers,
    body: init.type ? "{}" : undefined,
  });
};

describe("mutation request guard (CSRF)", () => {
  it("lets a JSON POST from the dashboard's own origin through (charset parameter allowed)", () => {
    expect(mutationRejection(request({ type: "application/json", origin: publicUrl }), publicUrl)).toBeNull();
    expect(
      mutationRejection(request({ type: "application/json; charset=utf-8", origin: publicUrl }), publicUrl),
    ).toBeNull();
    // PACKRAT_PUBLIC_URL with a path or trailing slash still means the same origin.
    expect(mutationRejection(request({ type: "application/json", origin: publicUrl }), `${publicUrl}/`)).toBeNull();
  });

  it("refuses another site's Origin, a missing one, and the opaque 'null' origin", () => {
    expect(mutationRejection(request({ type: "application/json", origin: "https://evil.example" }), publicUrl)).toMatch(
      /Origin https:\/\/evil.example/,
    );
    expect(
      mutationRejection(request({ type: "application/json", origin: "http://localhost:3101" }), publicUrl),
    ).toMatch(/Origin/);
    expect(mutationRejection(request({ type: "application/json" }), publicUrl)).toMatch(/no Origin/);
    expect(mutationRejection(request({ type: "application/json", origin: "null" }), publicUrl)).toMatch(/Origin null/);
  });

  it("a loopback public URL accepts its loopback aliases on the same scheme and port, and nothing more", () => {
    for (const origin of ["http://127.0.0.1:3100", "http://[::1]:3100"]) {
      expect(mutationRejection(request({ type: "application/json", origin }), publicUrl)).toBeNull();
    }
    expect(acceptedOrigins("http://127.0.0.1:3000")).toEqual([
      "http://127.0.0.1:3000",
      "http://localhost:3000",
      "http://[::1]:3000",
    ]);
    expect(acceptedOrigins("http://[::1]:3000/")).toEqual([
      "http://[::1]:3000",
      "http://localhost:3000",
      "http://127.0.0.1:3000",
    ]);
    // Default port: no port in the origin, as a browser sends it.
    expect(acceptedOrigins("http://localhost")).toEqual(["http://localhost", "http://127.0.0.1", "http://[::1]"]);
    for (const origin of [
      "http://127.0.0.1:3101",
      "https://127.0.0.1:3100",
      "http://127.0.0.2:3100",
      "http://localhost.evil.example:3100",
    ]) {
      expect(mutationRejection(request({ type: "application/json", origin }), publicUrl)).toMatch(
        /is not this dashboard's \(http:\/\/localhost:3100\)/,
      );
    }
  });

  it("a public URL that is not loopback accepts exactly its own origin", () => {
    expect(acceptedOrigins("https://packrat.example.com/dash")).toEqual(["https://packrat.example.com"]);
    expect(
      mutationRejection(
        request({ type: "application/json", origin: "http://127.0.0.1:3100" }),
        "https://packrat.example.com",
      ),
    ).toMatch(/not this dashboard's/);
  });

  it("refuses what an HTML form can send: urlencoded, multipart, text/plain", () => {
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain"]) {
      expect(mutationRejection(request({ type, origin: publicUrl }), publicUrl)).toMatch(/only as application\/json/);
    }
    expect(mutationRejection(request({ origin: publicUrl }), publicUrl)).toMatch(/no content type/);
  });

  it("refuses any method but POST", () => {
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      expect(mutationRejection(request({ method, type: "application/json", origin: publicUrl }), publicUrl)).toMatch(
        /only as POST/,
      );
    }
  });
});
