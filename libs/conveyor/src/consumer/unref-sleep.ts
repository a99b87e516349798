/** Resolves after `ms` (at once for 0 or less), without keeping the process alive. */
export function unrefSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());
}
