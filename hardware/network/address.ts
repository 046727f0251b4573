// The few facts of an address the network's plan and its read-back need: its family, the
// address without its prefix, one spelling for each (the kernel prints `fd00:40::11` for
// the operator's `fd00:40:0::11`), and whether a route is the default one. The manifest
// has already checked every address it holds; what does not read is returned unchanged.

export type Family = "inet" | "inet6";

/** `10.0.40.11/24` -> inet; `fd00:40::11/64` -> inet6. */
export function familyOf(address: string): Family {
  return address.includes(":") ? "inet6" : "inet";
}

/** The address without its prefix length. */
export function hostOf(cidr: string): string {
  return cidr.split("/")[0] ?? cidr;
}

/** One spelling of an address, with its prefix length when it has one: IPv6 compressed, lower case. */
export function canonical(address: string): string {
  const [host = "", prefix] = address.split("/");
  let out = host;
  if (familyOf(host) === "inet6") {
    // The URL parser compresses an IPv6 address as RFC 5952 says; a zone or junk throws.
    try {
      out = new URL(`http://[${host}]/`).hostname.slice(1, -1);
    } catch {
      // Not an address: returned as written, so it matches nothing the kernel holds.
      out = host.toLowerCase();
    }
  } else if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) out = host.split(".").map(Number).join(".");
  return prefix === undefined ? out : `${out}/${Number(prefix)}`;
}

/** `0.0.0.0/0` or `::/0` (however spelt). */
export function isDefaultRoute(to: string): boolean {
  return canonical(to) === "0.0.0.0/0" || canonical(to) === "::/0";
}
