// Every key the manifest format knows, table by table. An unknown key is an error, not
// ignored: a misspelt optional key would otherwise silently take its default.

export const TOP_KEYS = [
  "cluster",
  "release",
  "layout",
  "storage",
  "machines",
  "secure_boot",
  "encryption",
] as const;
export const RELEASE_KEYS = ["version"] as const;
export const SECURE_BOOT_KEYS = ["keep_microsoft", "enroll"] as const;
export const ENROLL_MODES = ["force", "manual"] as const;
export const ENCRYPTION_KEYS = ["tpm", "recovery"] as const;
export const RECOVERY_PLACES = ["report", "console"] as const;
export const LAYOUT_KEYS = ["esp", "slot", "crash_journal", "state"] as const;
export const STORAGE_KEYS = ["role", "size"] as const;
export const MACHINE_KEYS = [
  "name",
  "role",
  "ports",
  "nameservers",
  "interfaces",
  "modules",
  "system_disk",
  "reboot_policy",
  "match",
  "arch",
] as const;
export const MATCH_KEYS = ["mac", "serial", "uuid"] as const;
export const MODULE_KEYS = ["name", "parameters"] as const;
export const INTERFACE_KEYS = [
  "name",
  "bond",
  "vlan",
  "mtu",
  "addresses",
  "routes",
  "dhcp",
] as const;
export const BOND_KEYS = ["ports", "mode"] as const;
export const VLAN_KEYS = ["link", "id"] as const;
export const ROUTE_KEYS = ["to", "via"] as const;
export const BOND_MODES = ["802.3ad", "active-backup"] as const;
export const SELECTOR_PATTERN_KEYS = ["serial", "model", "wwn", "transport", "path"] as const;
export const SELECTOR_SIZE_KEYS = ["min_size", "max_size"] as const;
// `mirror` says how many disks the selector takes, not which.
export const SELECTOR_KEYS = [...SELECTOR_PATTERN_KEYS, ...SELECTOR_SIZE_KEYS, "mirror"] as const;

export const MACHINE_ROLES = ["leader", "follower"] as const;
export const REBOOT_POLICIES = ["Automatic", "Manual"] as const;
