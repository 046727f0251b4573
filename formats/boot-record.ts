// boot/record.json on the state partition: the boot agent's memory between boots, the
// trial it began and the release it turned away. It is a disk's bytes like any other (a
// power loss, an older release, a person's edit), so a part whose fields are not of their
// type reads as absent (agent/state-documents.fuzz.test.ts: a trial whose startedAt was a
// number stopped the agent).
import type { Slot } from "./boot-entries.ts";
import { jsonDocumentText, jsonObjectIn } from "./state-partition.ts";

/** Why a trial boot was rejected (docs/rollback.md, How a failed trial returns). */
export type RejectionReason =
  | "HealthCheckFailed"
  | "Crashed"
  | "NoBootComplete"
  | "BootImageRefused";

/** What the trial boot wrote on the state partition before and after its health checks. */
export interface TrialRecord {
  readonly version: string;
  readonly slot: Slot;
  readonly bootId: string;
  readonly startedAt: string;
  /** Started: the checks began and nothing finished; the others are final. */
  readonly outcome: "Started" | "HealthCheckFailed" | "Blessed";
  readonly message: string;
}

/** status.boot.systemRejection: the trial the machine turned away. */
export interface Rejection {
  readonly version: string;
  readonly slot: Slot;
  readonly reason: RejectionReason;
  /** Boots of the rejected entry (systemd-boot's tries done). */
  readonly attempts: number;
  readonly time: string;
  readonly message: string;
}

export interface BootRecord {
  readonly trial: TrialRecord | null;
  readonly rejection: Rejection | null;
}

export const EMPTY_RECORD: BootRecord = { trial: null, rejection: null };

const OUTCOMES: readonly unknown[] = ["Started", "HealthCheckFailed", "Blessed"];
const REASONS: readonly RejectionReason[] = [
  "HealthCheckFailed",
  "Crashed",
  "NoBootComplete",
  "BootImageRefused",
];

/** The record; null when it is not JSON or not an object. */
export function parseBootRecord(text: string): BootRecord | null {
  const value = jsonObjectIn(text);
  if (!value) return null;
  return { trial: trialOf(value.trial), rejection: rejectionOf(value.rejection) };
}

export function bootRecordText(record: BootRecord): string {
  return jsonDocumentText(record);
}

const isSlot = (x: unknown) => x === "a" || x === "b";
const isText = (x: unknown) => typeof x === "string";

function trialOf(value: unknown): TrialRecord | null {
  const t = value as Partial<Record<keyof TrialRecord, unknown>> | null;
  if (typeof t !== "object" || t === null) return null;
  const fields = [t.version, t.bootId, t.startedAt, t.message];
  return fields.every(isText) && isSlot(t.slot) && OUTCOMES.includes(t.outcome)
    ? (t as TrialRecord)
    : null;
}

function rejectionOf(value: unknown): Rejection | null {
  const r = value as Partial<Record<keyof Rejection, unknown>> | null;
  if (typeof r !== "object" || r === null) return null;
  const fields = [r.version, r.time, r.message];
  return fields.every(isText) &&
    isSlot(r.slot) &&
    REASONS.includes(r.reason as RejectionReason) &&
    typeof r.attempts === "number"
    ? (r as Rejection)
    : null;
}
