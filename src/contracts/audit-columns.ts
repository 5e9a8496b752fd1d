// The JSON columns of the audit log: what an action changed, as the service that recorded it described it.
import { jsonColumn } from "./json-column";
import { jsonValueSchema } from "./json-value";

export const auditBeforeColumn = jsonColumn("audit_event.before", jsonValueSchema);
export const auditAfterColumn = jsonColumn("audit_event.after", jsonValueSchema);
