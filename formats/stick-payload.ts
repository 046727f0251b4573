// Where the stick keeps what it was built with and what it writes (docs/image.md, What the
// stick holds): the payload its initramfs mounts (the stick's partition, the ISO's
// filesystem, or the netboot payload fetched into memory), and the files its root keeps in
// memory until power-off. Each path is spelled here only: the build writes the payload by
// them, the stick's shell interpolates them, and the verbs take them as their defaults.

/** Where the stick's initramfs mounts the payload, and its root finds it. */
export const PAYLOAD_MOUNT = "/payload";

/** The payload's files on the running stick, each under PAYLOAD_MOUNT. */
export const STICK_PAYLOAD = {
  /** The cluster manifest the stick was built with. */
  manifest: "/payload/cluster.toml",
  /** The release the stick installs into slot A. */
  release: "/payload/release",
  /** formats/stick-record.ts: what an unattended stick installed, once per machine. */
  record: "/payload/installed.json",
  /** hwreport/save-report.ts: the hardware reports the menu saves, carried away on the stick. */
  reports: "/payload/reports",
  /**
   * formats/enrollment-files.ts: a signed stick's Secure Boot keys as .auth updates, which
   * its Linux enrolls in a machine in setup mode (enroll = "force"); checked at boot.
   */
  secureBoot: "/payload/secure-boot",
} as const;

/** What the stick keeps in memory: gone at power-off. */
export const STICK_RUN = {
  /** formats/installer-status.ts: the one status file the menu, the unattended install and its report read. */
  installStatus: "/run/liken/install-status.json",
  /**
   * The record of a stick booted from an ISO or the network: their payload cannot be
   * written, so it lasts until power-off (their builds refuse liken.wipe=1).
   */
  record: "/run/liken/installed.json",
} as const;

/** A path of STICK_PAYLOAD as the build writes it: relative to the payload's root. */
export function inPayload(path: (typeof STICK_PAYLOAD)[keyof typeof STICK_PAYLOAD]): string {
  return path.slice(PAYLOAD_MOUNT.length + 1);
}
