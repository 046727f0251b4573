// An error as one line for the screen: a LikenError says what is wrong and what to do; any
// other error keeps its chain of causes, as the command line prints it.
import { LikenError } from "../common/errors.ts";

export function describeError(error: unknown): string {
  if (error instanceof LikenError) return error.message;
  if (error instanceof Error) {
    const chain: string[] = [];
    for (let e: unknown = error; e instanceof Error; e = e.cause) chain.push(e.message);
    return chain.join(": ");
  }
  return String(error);
}
