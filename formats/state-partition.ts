// The state partition's files (docs/design.md section 3): who the machine is, the release it
// should run, the installer's and the boot agent's status documents, and the agent's memory
// between boots. Each path is spelled here only; each document's type and its one reader
// are in the file named for it (identity.ts, spec-document.ts, installer-status.ts,
// machine-status.ts, boot-record.ts). Changing a path orphans every installed disk.

/** Paths relative to the state partition's root. */
export const STATE_FILES = {
  /** formats/identity.ts: written once by the installer. */
  identity: "identity.json",
  /** formats/spec-document.ts: the installer's, then replaced from an update medium. */
  spec: "spec.toml",
  /** formats/installer-status.ts. */
  installerStatus: "status/installer.json",
  /** formats/machine-status.ts: written by the boot agent at every boot. */
  machineStatus: "status/status.json",
  /** formats/boot-record.ts. */
  bootRecord: "boot/record.json",
} as const;

/** The JSON documents' bytes on disk: two-space indented, one final newline. */
export function jsonDocumentText(document: object): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** The JSON object `text` holds; undefined when it is not JSON or not an object. */
export function jsonObjectIn(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    // not JSON: the caller's "absent"
    return undefined;
  }
}
