// Documents on disks already written may spell a field as an older release did: the status
// documents said `bootID` until every document and verb spelled it `bootId`. A reader of
// such a document takes either and hands on the one spelling.

/** `doc` with an old `bootID` renamed `bootId` (kept where both are present). */
export function withCurrentSpellings<T extends object>(doc: T): T {
  if (!("bootID" in doc)) return doc;
  const { bootID, ...rest } = doc as T & { bootID: unknown };
  return ("bootId" in rest ? rest : { ...rest, bootId: bootID }) as T;
}
