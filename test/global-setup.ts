// Built once per test run and shared by every test that runs the command.
import { bundle } from "../scripts/bundle.mjs";

export default async function setup(): Promise<void> {
  await bundle({ testHooks: true });
}
