// The ways a test release fails on purpose (liken-stick release --fault), each a path the
// QEMU tests prove the machine comes back from (docs/rollback.md, How a failed trial returns).
export const RELEASE_FAULTS = ["health", "panic", "hang", "root", "verity", "signature"] as const;
export type ReleaseFault = (typeof RELEASE_FAULTS)[number];
