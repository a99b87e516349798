/**
 * Keeps the last lines a child process printed, so that a failure can be reported with its cause
 * without echoing the whole (chatty) PostgreSQL start-up log on every successful run.
 */
export class OutputTail {
  private readonly lines: string[] = [];

  constructor(private readonly capacity = 40) {}

  /** Adds a chunk of output, which may hold several lines or a partial one. */
  push(chunk: string): void {
    for (const line of chunk.split(/\r?\n/)) {
      if (!line.trim()) continue;
      this.lines.push(line);
      if (this.lines.length > this.capacity) this.lines.shift();
    }
  }

  /** The kept lines, oldest first. */
  toString(): string {
    return this.lines.join('\n');
  }
}
