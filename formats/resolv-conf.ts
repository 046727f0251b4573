// resolv.conf(5) for the declared nameservers. The roots are read-only, so their
// /etc/resolv.conf is a link to RESOLV_CONF, which the declared network's last step writes
// (docs/rollback.md, The declared network). The release's and the stick's builds make the
// link; the C library and busybox's tools read through it.

/** Where the declared nameservers go, on the tmpfs /run of the release's root and the stick's. */
export const RESOLV_CONF = "/run/liken/resolv.conf";

/** At most 3 nameservers count: glibc reads no more (MAXNS). */
export function resolvConfText(nameservers: readonly string[]): string {
  const lines = nameservers.slice(0, 3).map((n) => `nameserver ${n}`);
  return `# the manifest's nameservers for this machine, written at boot by liken\n${lines.join("\n")}\n`;
}
