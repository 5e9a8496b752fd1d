"use client";
import { CsvButton } from "@/components/charts/chart-frame";
import type { CsvTable } from "@/lib/planning/csv";

/** Print (the browser's "Save as PDF" uses the print stylesheet) and the CSV of the per-model rows. */
export function CostToolbar({ table, title }: { table: CsvTable; title: string }) {
  return (
    <div className="cost-toolbar no-print" data-testid="cost-toolbar">
      <button type="button" className="btn" onClick={() => window.print()} data-testid="cost-print">
        Print / PDF
      </button>
      <CsvButton title={title} table={table} testId="cost-csv" />
    </div>
  );
}
