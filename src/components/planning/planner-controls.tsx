"use client";
import type { ReactNode } from "react";
import type { FieldSpec } from "@/lib/planning/fields";

/** The test id of a field's input and of its message: `field-<key>`, `field-<key>-error`. */
export const fieldTestId = (key: string) => `field-${key}`;

function unitOf(spec: FieldSpec): string {
  return spec.kind === "choice" ? "" : spec.unit;
}

/**
 * One labelled input with its unit and, when the text does not validate, the message under it. Text inputs (not
 * type=number) so a wrong value stays visible with its message instead of being silently emptied by the browser.
 */
export function Field({
  name,
  spec,
  value,
  error,
  onChange,
  unitOverride,
  multiline = false,
  compact = false,
}: {
  name: string;
  spec: FieldSpec;
  value: string;
  error?: string;
  onChange: (value: string) => void;
  unitOverride?: ReactNode;
  multiline?: boolean;
  /** No visible label (a table cell); the label stays for screen readers. */
  compact?: boolean;
}) {
  const id = `f-${name}`;
  const unit = unitOverride ?? unitOf(spec);
  const common = {
    id,
    name,
    value,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? `${id}-error` : spec.help ? `${id}-help` : undefined,
    "data-testid": fieldTestId(name),
  } as const;
  let control: ReactNode;
  if (spec.kind === "choice") {
    control = (
      <select {...common} onChange={(e) => onChange(e.target.value)}>
        {spec.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
        {!spec.options.some((o) => o.value === value) && <option value={value}>{value || "(none)"}</option>}
      </select>
    );
  } else if (multiline) {
    control = <textarea {...common} rows={3} spellCheck={false} onChange={(e) => onChange(e.target.value)} />;
  } else {
    control = (
      <input
        {...common}
        type="text"
        inputMode={spec.kind === "number" ? "decimal" : "text"}
        autoComplete="off"
        spellCheck={false}
        placeholder={spec.kind === "number" && spec.optional ? "optional" : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  return (
    <div className={`field${error ? " invalid" : ""}${compact ? " compact" : ""}`}>
      <label htmlFor={id} className={compact ? "visually-hidden" : undefined}>
        {spec.label}
      </label>
      <div className="field-control">
        {control}
        {unit && <span className="field-unit">{unit}</span>}
      </div>
      {error ? (
        <div className="field-error" id={`${id}-error`} role="alert" data-testid={`${fieldTestId(name)}-error`}>
          {error}
        </div>
      ) : (
        spec.help &&
        !compact && (
          <div className="field-help" id={`${id}-help`}>
            {spec.help}
          </div>
        )
      )}
    </div>
  );
}

export interface PresetOption {
  id: string;
  label: string;
  source: string;
}

/** The chapter's presets, one click away; the active one's source line says where its numbers come from. */
export function PresetBar({
  presets,
  activeId,
  onSelect,
}: {
  presets: readonly PresetOption[];
  activeId: string | null;
  onSelect: (id: string) => void;
}) {
  const active = presets.find((p) => p.id === activeId);
  return (
    <div className="preset-bar" data-testid="presets">
      <span className="preset-label">Presets</span>
      {presets.map((p) => (
        <button
          key={p.id}
          type="button"
          className={`btn-preset${p.id === activeId ? " active" : ""}`}
          aria-pressed={p.id === activeId}
          data-testid={`preset-${p.id}`}
          onClick={() => onSelect(p.id)}
        >
          {p.label}
        </button>
      ))}
      <div className="preset-source" data-testid="preset-source">
        {active ? active.source : "Custom inputs (no preset matches them)."}
      </div>
    </div>
  );
}

/** A section's refusal: the model cannot answer for these inputs, and why. */
export function ModelMessage({ message, testId }: { message: string; testId?: string }) {
  return (
    <div className="error-box planner-message" role="alert" data-testid={testId}>
      {message}
    </div>
  );
}

/** A titled block of inputs in the planner's left column. */
export function FieldGroup({ title, children }: { title: string; children: ReactNode }) {
  return (
    <fieldset className="field-group">
      <legend>{title}</legend>
      {children}
    </fieldset>
  );
}

/** Key figures as a definition list: label, value (with unit), optional note. */
export function Figures({
  items,
  testId,
}: {
  items: readonly { label: string; value: string; note?: string; testId?: string }[];
  testId?: string;
}) {
  return (
    <dl className="kv figures" data-testid={testId}>
      {items.map((i) => (
        <div key={i.label} className="figure-row">
          <dt>{i.label}</dt>
          <dd data-testid={i.testId}>
            {i.value}
            {i.note && <span className="figure-note"> {i.note}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** Whether the state equals a preset's state (to mark the preset active). */
export function matchingPreset<T extends Record<string, string>>(
  presets: readonly { id: string; state: T }[],
  state: T,
): string | null {
  for (const p of presets) {
    if (Object.keys(p.state).every((k) => p.state[k] === state[k])) return p.id;
  }
  return null;
}

/** A headline number with its label and a short line under it; green or red edge for a verdict. */
export function SummaryTile({
  label,
  value,
  sub,
  status,
  testId,
}: {
  label: string;
  value: string;
  sub?: string;
  status?: "ok" | "bad";
  testId?: string;
}) {
  return (
    <div className={`summary-tile${status ? ` ${status}` : ""}`} data-testid={testId}>
      <div className="summary-label">{label}</div>
      <div className="summary-value">{value}</div>
      {sub && <div className="summary-sub">{sub}</div>}
    </div>
  );
}
