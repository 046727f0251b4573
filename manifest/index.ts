// The cluster manifest: the TOML file that names the cluster, its release, its disk layout
// and its machines. docs/manifest.md is the operator's reference for the format.

export { parseManifest } from "./parse.ts";
export { formatProblem } from "./problems.ts";
export { LAYOUT_DEFAULTS, MINIMUMS, parseSize } from "./size.ts";
export type {
  DiskSelector,
  EncryptionSettings,
  Layout,
  Machine,
  MachineRole,
  Manifest,
  ManifestProblem,
  ManifestResult,
  RebootPolicy,
  SecureBootSettings,
  StorageRole,
} from "./types.ts";
export { machineArch } from "./types.ts";
