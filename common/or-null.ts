// A synchronous read that may fail (a sysfs file that is absent, or that the kernel refuses
// to read: carrier of a down link is EINVAL) as a value: null instead of the error.
export function orNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    // The read's error is the answer: the value is absent (see above).
    return null;
  }
}
