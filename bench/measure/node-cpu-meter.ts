/**
 * CPU time of this Node process (user + system, all threads) between `start()` and `stop()`, from
 * `process.cpuUsage()`.
 */
export class NodeCpuMeter {
  private begin: NodeJS.CpuUsage | null = null;

  start(): void {
    this.begin = process.cpuUsage();
  }

  /** Milliseconds of CPU used since `start()`. */
  stop(): number {
    if (!this.begin) throw new Error('NodeCpuMeter.stop() before start()');
    const used = process.cpuUsage(this.begin);
    return (used.user + used.system) / 1000;
  }
}
