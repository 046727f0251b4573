// Every property test in the unit and integration tiers starts from the suite's fixed seed
// (test/fuzz.ts), those that pass no parameters of their own too, so no run of the suite
// meets a case another run did not: a failure in CI is the same failure on a laptop.
import fc from "fast-check";
import { SUITE_SEED } from "./fuzz.ts";

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: SUITE_SEED });
