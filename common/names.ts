// The name rules: DNS-1123 labels (cluster, machines, storage roles), release versions and
// Linux interface names.

const DNS_LABEL = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

export function isDnsLabel(name: string, maxLength = 63): boolean {
  return name.length <= maxLength && DNS_LABEL.test(name);
}

/** The label an invalid name most plausibly meant ("My_Cluster" -> "my-cluster"), if any. */
export function nearestDnsLabel(name: string, maxLength = 63): string | undefined {
  const label = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return label !== name && isDnsLabel(label, maxLength) ? label : undefined;
}

export function dnsLabelHint(name: string, maxLength = 63): string {
  const rule = `use lower-case letters, digits and "-", start and end with a letter or digit, at most ${maxLength} characters`;
  const guess = nearestDnsLabel(name, maxLength);
  return guess === undefined ? rule : `did you mean ${JSON.stringify(guess)}? ${rule}`;
}

const VERSION = /^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$/;

export function isVersion(version: string): boolean {
  return VERSION.test(version);
}

/** Linux refuses longer names (IFNAMSIZ is 16 with the terminating NUL). */
const INTERFACE_NAME_BYTES = 15;

/** Why the kernel would refuse `name` as a network interface name, or undefined. */
export function interfaceNameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (name === "." || name === "..") return "is not an interface name";
  if (name.includes("/")) return 'contains "/"';
  if (name.includes(":")) return 'contains ":"';
  if (name.includes("\0")) return "contains a NUL character";
  if (/\s/.test(name)) return "contains whitespace";
  const bytes = Buffer.byteLength(name, "utf8");
  if (bytes > INTERFACE_NAME_BYTES)
    return `is ${bytes} bytes long, more than ${INTERFACE_NAME_BYTES}`;
  return undefined;
}

export const INTERFACE_NAME_RULE =
  'an interface name has 1 to 15 bytes, no "/", ":", whitespace or NUL, and is not "." or ".."';
