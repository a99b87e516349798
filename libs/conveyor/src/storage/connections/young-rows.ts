/**
 * The rows of a result, in an array of our own; pg's is emptied. pg makes every result's row array at one
 * place (its Result constructor), and V8, having seen arrays from there outlive a young-generation GC,
 * allocates them straight in the old generation. Such an array is dead as soon as its statement's caller
 * has read it, but an old object is only found dead by a full GC: until then, every young-generation GC
 * treats the rows it points to — with their strings, dates and payloads — as alive, copies them, and after
 * the second one moves them to the old generation too. Emptying it lets the rows die young (what that saves:
 * docs/performance.md, "Design notes from measurements").
 */
export function youngRows<R>(rows: R[]): R[] {
  const copy = rows.slice();
  rows.length = 0;
  return copy;
}
