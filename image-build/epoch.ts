// Every timestamp an image holds: SOURCE_DATE_EPOCH when the environment sets it
// (reproducible-builds.org/specs/source-date-epoch), else a fixed date, so two builds from
// the same inputs are byte-identical either way.
export const DEFAULT_EPOCH = 1_700_000_000;

export function buildEpoch(): number {
  const env = Number(process.env.SOURCE_DATE_EPOCH);
  return Number.isInteger(env) && env >= 0 ? env : DEFAULT_EPOCH;
}
