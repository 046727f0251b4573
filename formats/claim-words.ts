// Whose install a disk holds, in the words `disks`, `inspect` and the menu all use: each
// phrase is made here once, so the three never word a mirror member differently.
import type { ClaimMirror } from "./claim.ts";

/** What the texts need of a claim: a decoded one, its summary, or a plan's disk. */
export interface ClaimOwner {
  readonly cluster: string;
  readonly machine: string;
  readonly mirror?: ClaimMirror;
}

/** "mycluster/leader-1", or on a mirror member "mirror member 1 of 2 of mycluster/leader-1". */
export function claimOwner(claim: ClaimOwner): string {
  const owner = `${shown(claim.cluster)}/${shown(claim.machine)}`;
  return claim.mirror ? `${mirrorPlace(claim.mirror)} of ${owner}` : owner;
}

/** claimOwner(), and on a mirror member the other disk: "... beside S4EVNX0N123456". */
export function claimOwnerBeside(claim: ClaimOwner): string {
  const beside = claim.mirror && besidePeer(claim.mirror);
  return beside ? `${claimOwner(claim)} ${beside}` : claimOwner(claim);
}

/** "mirror member 1 of 2" (a mirror is always two disks). */
export function mirrorPlace(mirror: ClaimMirror): string {
  return `mirror member ${mirror.member} of 2`;
}

/**
 * "beside " and the other member by what tells it apart best: its serial, else its WWN,
 * else its path at install time; undefined when the claim names none.
 */
export function besidePeer(mirror: ClaimMirror): string | undefined {
  const { serial, wwn, path } = mirror.peer;
  const name = serial || wwn || path;
  return name ? `beside ${shown(name)}` : undefined;
}

// A claim's text comes from a disk's bytes: a control character would rewrite the terminal.
function shown(text: string): string {
  return text.replace(/\p{Cc}/gu, "?");
}
