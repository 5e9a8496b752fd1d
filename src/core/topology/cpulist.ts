import { TopologyError } from "./errors";

// Linux cpulist syntax (sysfs `cpulist`, /proc/self/status `Cpus_allowed_list`, `taskset -c`): comma-separated ids or
// ranges "a-b". The kernel also accepts a stride "a-b:used/group" (e.g. "0-7:1/2" = 0,2,4,6), so we parse it too.
const ITEM = /^(\d+)(?:-(\d+)(?::(\d+)\/(\d+))?)?$/;

/** Upper bound on ids, so a typo like "0-99999999" cannot allocate a huge array. Linux's NR_CPUS max is 8192. */
export const MAX_CPU_ID = 65_535;

/** Parses "0-3,8-11" into sorted, de-duplicated CPU ids. An empty or blank string is the empty set. */
export function parseCpuList(text: string, param = "cpulist"): number[] {
  const trimmed = text.trim();
  if (trimmed === "") return [];
  const ids = new Set<number>();
  for (const raw of trimmed.split(",")) {
    const item = raw.trim();
    const m = ITEM.exec(item);
    if (!m) throw new TopologyError("invalid-cpulist", param, `cannot parse "${item}" in "${trimmed}"`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    if (hi > MAX_CPU_ID) throw new TopologyError("invalid-cpulist", param, `CPU id ${hi} exceeds ${MAX_CPU_ID}`);
    if (hi < lo) throw new TopologyError("invalid-cpulist", param, `range "${item}" runs backwards`);
    const used = m[3] === undefined ? 1 : Number(m[3]);
    const group = m[4] === undefined ? 1 : Number(m[4]);
    if (group < 1 || used < 1 || used > group) {
      throw new TopologyError("invalid-cpulist", param, `stride "${item}" needs 1 ≤ used ≤ group`);
    }
    for (let id = lo; id <= hi; id++) if ((id - lo) % group < used) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** Formats CPU ids as the shortest cpulist: runs of ≥ 2 consecutive ids become "a-b" (the kernel's own style). */
export function formatCpuList(cpus: readonly number[], param = "cpus"): string {
  for (const id of cpus) {
    if (!Number.isInteger(id) || id < 0 || id > MAX_CPU_ID) {
      throw new TopologyError("invalid-cpu-id", param, `CPU id must be an integer in 0..${MAX_CPU_ID}, got ${id}`);
    }
  }
  const sorted = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  let i = 0;
  while (i < sorted.length) {
    const start = sorted[i]!;
    let end = start;
    while (i + 1 < sorted.length && sorted[i + 1] === end + 1) end = sorted[++i]!;
    parts.push(start === end ? `${start}` : `${start}-${end}`);
    i++;
  }
  return parts.join(",");
}
