// "Did you mean": the nearest allowed word to a misspelt one.
import { nearest } from "../common/nearest.ts";

export { editDistance, nearest } from "../common/nearest.ts";

/** `did you mean "slot"? allowed: esp, slot` or just `allowed: esp, slot`. */
export function allowedHint(word: string, allowed: readonly string[]): string {
  const guess = nearest(word, allowed);
  const list = `allowed: ${allowed.join(", ")}`;
  return guess === undefined ? list : `did you mean ${JSON.stringify(guess)}? ${list}`;
}
