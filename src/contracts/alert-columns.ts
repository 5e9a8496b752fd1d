// The JSON columns of alerts and their webhook deliveries.
import { z } from "zod";
import { jsonColumn, storedDate } from "./json-column";
import { jsonValueSchema } from "./json-value";

/** alert.details: the rule's figures behind the alert (its own record, by rule). */
export const alertDetailsColumn = jsonColumn("alert.details", z.record(z.string(), jsonValueSchema));

/** One delivery attempt: when, how long, and the answer (an HTTP status, or why there was none). */
export const deliveryAttemptSchema = z.object({
  at: storedDate,
  ms: z.number().min(0),
  httpStatus: z.number().int().optional(),
  error: z.string().optional(),
});
export type DeliveryAttempt = z.infer<typeof deliveryAttemptSchema>;

/** alert_delivery.log: every attempt so far, oldest first. */
export const deliveryLogColumn = jsonColumn("alert_delivery.log", z.array(deliveryAttemptSchema));

/** alert_delivery.payload: the webhook body as it is sent on every attempt. */
export const deliveryPayloadColumn = jsonColumn("alert_delivery.payload", jsonValueSchema);
