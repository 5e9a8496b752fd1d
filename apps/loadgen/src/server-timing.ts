// The Server-Timing response header (W3C): `formation;dur=0.012, busy;dur=0, compute;dur=0.81` → durations in ms.
// The agent uses it to say where a request's time went inside the server.
export function parseServerTiming(header: string | string[] | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  if (header === undefined) return out;
  for (const entry of (Array.isArray(header) ? header.join(",") : header).split(",")) {
    const [rawName, ...params] = entry.split(";").map((p) => p.trim());
    if (!rawName || !/^[!#$%&'*+\-.^_`|~\w]+$/.test(rawName)) continue;
    for (const param of params) {
      const match = /^dur\s*=\s*"?([0-9]*\.?[0-9]+(?:[eE][-+]?\d+)?)"?$/.exec(param);
      if (match) {
        const value = Number(match[1]);
        if (Number.isFinite(value) && !(rawName in out)) out[rawName] = value; // the first entry of a name wins (spec)
      }
    }
  }
  return out;
}
