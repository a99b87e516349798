import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';

/** Names of everything a test network creates start with this, so a run can sweep what a crashed run left. */
const PREFIX = 'cvt';

/** Networks still up in this process, taken down at exit whatever happened to the test. */
const live = new Set<TestNetwork>();
process.once('exit', () => {
  for (const network of live) network.destroy();
});

/** One host of a {@link TestNetwork}: a network namespace with one interface on the network's bridge. */
export interface TestHost {
  name: string;
  /** Its network namespace. */
  namespace: string;
  /** Its address on the bridge. */
  address: string;
  /** The command prefix that runs a program on this host. */
  exec: string[];
}

/**
 * Separate hosts on this machine: Linux network namespaces on a bridge in the root namespace, which (this test
 * process, the database, a webhook receiver) is at `gateway`. Needs root and iproute2 (`ip`, `tc`).
 *
 * Each host reaches the bridge through a wire of its own: a namespace in between that bridges the host's link to
 * the root's. Cutting a host off drops every packet in the wire (a queue of length 0 on both its ports), so
 * neither end learns anything: no reset, no unreachable, links up, and each end's TCP backs off as it would on a
 * real network. A drop on an end's own interface would not be silent: that end's TCP would see its send fail and
 * retry at once when the queue took packets again.
 */
export class TestNetwork {
  readonly hosts: TestHost[] = [];
  private readonly bridge: string;

  private constructor(
    private readonly id: string,
    private readonly subnet: string,
  ) {
    this.bridge = `${PREFIX}${id}br`;
  }

  /** Address of the root namespace on the bridge. */
  get gateway(): string {
    return `${this.subnet}.1`;
  }

  /** Why namespaces cannot be made here, or null when they can. */
  static unavailable(): string | null {
    if (process.getuid?.() !== 0) return 'network namespaces need root';
    try {
      execFileSync('ip', ['-V'], { stdio: 'ignore' });
      execFileSync('tc', ['-V'], { stdio: 'ignore' });
    } catch {
      return 'iproute2 (ip, tc) is not installed';
    }
    const probe = `${PREFIX}probe${process.pid}`;
    try {
      execFileSync('ip', ['netns', 'add', probe], { stdio: 'pipe' });
      execFileSync('ip', ['netns', 'del', probe], { stdio: 'pipe' });
    } catch (err) {
      return `cannot create a network namespace: ${(err as { stderr?: Buffer }).stderr?.toString().trim() ?? (err as Error).message}`;
    }
    return null;
  }

  /** A bridge and `count` hosts on it. */
  static create(count: number): TestNetwork {
    TestNetwork.sweep();
    const id = `${process.pid % 1000}${randomInt(10, 99)}`;
    const network = new TestNetwork(id, `10.${randomInt(100, 250)}.${randomInt(0, 255)}`);
    live.add(network);
    try {
      network.ip('link', 'add', network.bridge, 'type', 'bridge');
      network.ip('addr', 'add', `${network.gateway}/24`, 'dev', network.bridge);
      network.ip('link', 'set', network.bridge, 'up');
      for (let i = 1; i <= count; i++) network.addHost(i);
    } catch (err) {
      network.destroy();
      throw err;
    }
    return network;
  }

  /** Removes what earlier runs of this suite left behind (a run killed before its clean-up). */
  static sweep(): void {
    const namespaces = execFileSync('ip', ['netns', 'list'])
      .toString()
      .split('\n')
      .map((l) => l.split(' ')[0]);
    for (const ns of namespaces) if (ns.startsWith(PREFIX)) quiet(['ip', 'netns', 'del', ns]);
    const links = execFileSync('ip', ['-o', 'link', 'show']).toString().split('\n');
    for (const line of links) {
      const name = line.split(': ')[1]?.split('@')[0];
      if (name?.startsWith(PREFIX)) quiet(['ip', 'link', 'del', name]);
    }
  }

  /** Drops every packet to and from `host` without telling either side. */
  cut(host: TestHost): void {
    for (const port of ['wan', 'lan']) this.run([...this.wire(host), 'tc', 'qdisc', 'replace', 'dev', port, 'root', 'pfifo', 'limit', '0']);
  }

  /** Lets `host`'s packets through again. */
  heal(host: TestHost): void {
    for (const port of ['wan', 'lan']) quiet([...this.wire(host), 'tc', 'qdisc', 'del', 'dev', port, 'root']);
  }

  /** Takes the hosts, their wires and the bridge down. */
  destroy(): void {
    live.delete(this);
    for (const host of this.hosts) {
      quiet(['ip', 'netns', 'del', host.namespace]);
      quiet(['ip', 'netns', 'del', `${host.namespace}w`]);
    }
    quiet(['ip', 'link', 'del', this.bridge]);
  }

  private addHost(i: number): void {
    const namespace = `${PREFIX}${this.id}h${i}`;
    const host: TestHost = { name: `host${i}`, namespace, address: `${this.subnet}.${10 + i}`, exec: ['ip', 'netns', 'exec', namespace] };
    this.hosts.push(host);
    const wire = this.wire(host);
    // Link names are at most 15 characters; each end is renamed once it is in its namespace.
    const toRoot = `${PREFIX}${this.id}r${i}`;
    const toHost = `${PREFIX}${this.id}l${i}`;
    this.ip('netns', 'add', namespace);
    this.ip('netns', 'add', `${namespace}w`);
    this.ip('link', 'add', toRoot, 'type', 'veth', 'peer', 'name', `${toRoot}p`);
    this.ip('link', 'set', toRoot, 'master', this.bridge);
    this.ip('link', 'set', toRoot, 'up');
    this.ip('link', 'set', `${toRoot}p`, 'netns', `${namespace}w`);
    this.run([...wire, 'ip', 'link', 'set', `${toRoot}p`, 'name', 'wan']);
    this.ip('link', 'add', toHost, 'type', 'veth', 'peer', 'name', `${toHost}p`);
    this.ip('link', 'set', toHost, 'netns', `${namespace}w`);
    this.run([...wire, 'ip', 'link', 'set', toHost, 'name', 'lan']);
    this.ip('link', 'set', `${toHost}p`, 'netns', namespace);
    this.run([...host.exec, 'ip', 'link', 'set', `${toHost}p`, 'name', 'eth0']);
    this.run([...wire, 'ip', 'link', 'add', 'wire', 'type', 'bridge']);
    for (const port of ['wan', 'lan']) this.run([...wire, 'ip', 'link', 'set', port, 'master', 'wire']);
    for (const link of ['wan', 'lan', 'wire']) this.run([...wire, 'ip', 'link', 'set', link, 'up']);
    this.run([...host.exec, 'ip', 'addr', 'add', `${host.address}/24`, 'dev', 'eth0']);
    this.run([...host.exec, 'ip', 'link', 'set', 'eth0', 'up']);
    this.run([...host.exec, 'ip', 'link', 'set', 'lo', 'up']);
  }

  /** The command prefix that runs a program in `host`'s wire. */
  private wire(host: TestHost): string[] {
    return ['ip', 'netns', 'exec', `${host.namespace}w`];
  }

  private ip(...args: string[]): void {
    this.run(['ip', ...args]);
  }

  private run([file, ...args]: string[]): void {
    try {
      execFileSync(file, args, { stdio: 'pipe' });
    } catch (err) {
      throw new Error(
        `${file} ${args.join(' ')} failed: ${(err as { stderr?: Buffer }).stderr?.toString().trim() ?? (err as Error).message}`,
      );
    }
  }
}

function quiet([file, ...args]: string[]): void {
  try {
    execFileSync(file, args, { stdio: 'ignore' });
  } catch {
    // already gone
  }
}
