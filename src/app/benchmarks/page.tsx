import { SpeedupChart } from "@/components/benchmarks/speedup-chart";
import { requireUser } from "@/server/auth/page-guard";
import { listBenchmarkResults, type BenchmarkResult } from "@/server/services/benchmarks-service";
import "@/components/benchmarks/benchmarks.css";

export const dynamic = "force-dynamic";

const fmt = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(1) : Math.abs(v) >= 1 ? v.toFixed(3) : v.toPrecision(3));
const spread = (f: BenchmarkResult["figures"][number]) => {
  const s = f.spread;
  if (!s) return "";
  if (s.value !== undefined) return `±${fmt(s.value)} (${s.kind})`;
  if (s.low !== undefined && s.high !== undefined) return `${fmt(s.low)}–${fmt(s.high)} (${s.kind})`;
  return s.kind;
};
/** Long tables fold: the page stays a summary, every row one click away. */
const FOLD_ROWS = 12;

function Result({ r }: { r: BenchmarkResult }) {
  const gib = (r.machine.memoryBytes / 2 ** 30).toFixed(0);
  const cores = Number(/T = (\d+)/.exec(r.tables?.[0]?.title ?? "")?.[1] ?? r.machine.logicalCpus);
  return (
    <section className="panel section bench-result" id={r.name} data-testid={`benchmark-${r.name}`}>
      <h2>{r.name}</h2>
      <p className="bench-description">{r.description}</p>
      <p className="small muted">
        Measured {new Date(r.date).toISOString().replace("T", " ").slice(0, 16)} UTC on {r.machine.cpuModel} (
        {r.machine.logicalCpus} logical CPUs, {gib} GiB), Node {r.machine.node}
        {r.quick ? " · quick mode (fewer repetitions)" : ""} · took {r.durationS.toFixed(0)} s · bench/results/{r.file}
      </p>
      {r.name === "packrat" && <SpeedupChart figures={r.figures} cores={cores} />}
      {r.notes && r.notes.length > 0 && (
        <details className="bench-notes" open={r.name === "packrat"}>
          <summary>Notes: method, baselines, caveats ({r.notes.length})</summary>
          <ul>
            {r.notes.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </details>
      )}
      <details className="bench-table" open={r.figures.length <= FOLD_ROWS}>
        <summary>Figures ({r.figures.length})</summary>
        <div className="table-wrap">
          <table className="data bench">
            <thead>
              <tr>
                <th>figure</th>
                <th className="num">value</th>
                <th>unit</th>
                <th>spread</th>
                <th className="num">samples</th>
              </tr>
            </thead>
            <tbody>
              {r.figures.map((f, i) => (
                <tr key={i}>
                  <td>{f.label}</td>
                  <td className="num">{fmt(f.value)}</td>
                  <td>{f.unit}</td>
                  <td className="nowrap">{spread(f)}</td>
                  <td className="num">{f.samples ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      {(r.tables ?? []).map((t, i) => (
        <details key={i} className="bench-table" open={t.rows.length <= FOLD_ROWS}>
          <summary>
            {t.title} ({t.rows.length} rows)
          </summary>
          <div className="table-wrap">
            <table className="data bench">
              <thead>
                <tr>
                  {t.columns.map((c, k) => (
                    <th key={k}>{c}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {t.rows.map((row, j) => (
                  <tr key={j}>
                    {row.map((c, k) => (
                      <td key={k} className={typeof c === "number" ? "num" : undefined}>
                        {typeof c === "number" ? fmt(c) : c}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      ))}
    </section>
  );
}

// Every signed-in role reads the benchmarks: they are how Packrat's speed claim is checked.
export default async function BenchmarksPage() {
  await requireUser("/benchmarks");
  const { results, unreadable } = await listBenchmarkResults();
  const ordered = [...results.filter((r) => r.name === "packrat"), ...results.filter((r) => r.name !== "packrat")];
  return (
    <>
      <h1>Benchmarks</h1>
      <p className="subtitle">
        The latest result of each benchmark under <span className="mono">bench/</span>, as{" "}
        <span className="mono">npm run bench</span> wrote it. Ratios are always against a baseline measured in the same
        run.
      </p>
      {ordered.length === 0 && (
        <p className="muted" data-testid="benchmarks-empty">
          No results yet: run <span className="mono">npm run bench</span> on this host.
        </p>
      )}
      {ordered.length > 0 && (
        <nav className="bench-index" aria-label="Benchmarks on this page">
          {ordered.map((r) => (
            <a key={r.name} href={`#${r.name}`}>
              {r.name}
            </a>
          ))}
        </nav>
      )}
      {unreadable.map((u) => (
        <div key={u.file} className="error-box" role="alert">
          bench/results/{u.file} is not a benchmark result: {u.reason}
        </div>
      ))}
      {ordered.map((r) => (
        <Result key={r.name} r={r} />
      ))}
    </>
  );
}
