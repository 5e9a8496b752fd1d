// How an alert is named in the audit log, whoever acts on it (the evaluator opening or resolving it, a user
// acknowledging or resolving it).
export const alertAuditTarget = (alert: { id: string; rule: string; objectLabel: string }) => ({
  type: "alert",
  id: alert.id,
  label: `${alert.rule}: ${alert.objectLabel}`,
});
