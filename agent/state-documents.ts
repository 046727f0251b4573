// The boot agent's documents on the state partition, read back at the next boot: its boot
// record and its last status. They are a disk's bytes like any other (a power loss, an
// older release, a person's edit), so a field the agent uses must be of its type; a record
// or a condition that is not reads as absent (state-documents.fuzz.test.ts: a trial whose
// startedAt was a number, or conditions that were not a list, stopped the agent).
import { withCurrentSpellings } from "../formats/old-spellings.ts";
import type { MachineStatus } from "./status.ts";
import type { BootRecord, Rejection, RejectionReason, TrialRecord } from "./types.ts";

const OUTCOMES: readonly unknown[] = ["Started", "HealthCheckFailed", "Blessed"];
const REASONS: readonly RejectionReason[] = [
  "HealthCheckFailed",
  "Crashed",
  "NoBootComplete",
  "BootImageRefused",
];

/** boot/record.json; null when it is not JSON or not an object. */
export function parseBootRecord(text: string): BootRecord | null {
  const value = objectIn(text);
  if (!value) return null;
  return { trial: trialOf(value.trial), rejection: rejectionOf(value.rejection) };
}

/**
 * status/status.json as the last boot wrote it; null when it is not JSON or not an object.
 * The next status takes only its conditions (when each changed), so those are checked.
 */
export function parsePreviousStatus(text: string): MachineStatus | null {
  const value = objectIn(text);
  if (!value) return null;
  const conditions = Array.isArray(value.conditions)
    ? value.conditions.filter((c: unknown) => {
        const x = c as Record<string, unknown> | null;
        return (
          typeof x === "object" &&
          x !== null &&
          typeof x.type === "string" &&
          typeof x.status === "string" &&
          typeof x.lastTransitionTime === "string"
        );
      })
    : [];
  return { ...withCurrentSpellings(value), conditions } as unknown as MachineStatus;
}

function objectIn(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
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
