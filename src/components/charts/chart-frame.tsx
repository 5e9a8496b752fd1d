"use client";
import type { ReactNode } from "react";
import { csvFileName, toCsv, type CsvTable } from "@/lib/planning/csv";

/** The label every modeled value carries, so nobody mistakes a planner's estimate for a reading. */
export function ModelBadge() {
  return (
    <span className="badge model" title="Computed from the inputs by the chapter's models; a load test must confirm it">
      model, not measurement
    </span>
  );
}

/** Downloads a chart's data as CSV at full precision. */
export function CsvButton({ title, table, testId }: { title: string; table: CsvTable; testId?: string }) {
  const empty = table.rows.length === 0;
  return (
    <button
      type="button"
      className="btn-small"
      disabled={empty}
      data-testid={testId}
      title={empty ? "No data to export" : `Download ${csvFileName(title)}`}
      onClick={() => {
        const blob = new Blob([toCsv(table)], { type: "text/csv;charset=utf-8" });
        const url = URL.createObjectURL(blob);
        const link = document.createElement("a");
        link.href = url;
        link.download = csvFileName(title);
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 1000);
      }}
    >
      CSV
    </button>
  );
}

/** A chart card: title, what the axes measure, the model label, CSV export, then the chart or why there is none. */
export function ChartFrame({
  title,
  units,
  csv,
  testId,
  modeled = true,
  note,
  empty,
  children,
}: {
  title: string;
  /** One line naming the axes and their units. */
  units: string;
  csv: CsvTable;
  testId: string;
  modeled?: boolean;
  note?: ReactNode;
  /** When set, shown instead of the chart (e.g. the inputs it needs are invalid). */
  empty?: string | null;
  children: ReactNode;
}) {
  return (
    <figure className="chart-card" data-testid={testId} aria-label={title}>
      <figcaption className="chart-head">
        <div className="chart-title">
          <h3>{title}</h3>
          <span className="chart-units">{units}</span>
        </div>
        <div className="chart-actions">
          {modeled && <ModelBadge />}
          <CsvButton title={title} table={csv} testId={`${testId}-csv`} />
        </div>
      </figcaption>
      {empty ? (
        <div className="chart-empty" data-testid={`${testId}-empty`}>
          {empty}
        </div>
      ) : (
        children
      )}
      {note && <div className="chart-note">{note}</div>}
    </figure>
  );
}
