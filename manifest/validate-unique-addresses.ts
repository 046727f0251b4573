// An address belongs to one interface of one machine in the whole cluster: two holders
// would answer for each other, and duplicate address detection would take it from both.
import { canonicalAddress } from "../common/ip-address.ts";
import type { Check } from "./check.ts";
import type { Machine } from "./types.ts";

/**
 * Reported at the second holder, naming the first. `machines[i]` must be the i-th
 * [[machines]] entry, each interface and address at its index in the file: the caller
 * judges only a manifest whose every machine read.
 */
export function checkUniqueAddresses(ck: Check, machines: readonly Machine[]): void {
  const holders = new Map<string, string>();
  machines.forEach((machine, m) => {
    machine.interfaces.forEach((declared, i) => {
      declared.addresses.forEach((text, a) => {
        const address = canonicalAddress(text.slice(0, text.lastIndexOf("/"))) ?? text;
        const holder = holders.get(address);
        if (holder === undefined) {
          holders.set(address, `${declared.name} of ${machine.name}`);
          return;
        }
        ck.error(
          ck.valuePos(["machines", m, "interfaces", i, "addresses", a]),
          `address ${JSON.stringify(text)} is also on ${holder}`,
          "an address belongs to one interface of one machine: change one of the two",
        );
      });
    });
  });
}
