// The recovery key of an encrypted install (recovery = "console") as the unattended flow and
// `install` print it: shown this once, kept nowhere (docs/install.md, Encryption).

/** The recovery key on the consoles (recovery = "console"): shown this once, kept nowhere. */
export function recoveryKeyWords(machine: string, key: string): string {
  return [
    `liken-stick: the recovery key of ${machine}'s encrypted disks, shown this once:`,
    `    ${key}`,
    "liken-stick: keep it where the cluster's secrets are; the machine asks for it when its TPM will not open the disks",
    "",
  ].join("\n");
}
