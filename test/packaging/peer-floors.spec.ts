import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The oldest version a peer range of @conveyor/core lets a host install, and the oldest that has what the engine
 * uses of that peer. npm checks a host against the range only, so a floor below the feature's version is a start-up
 * failure in the host, far from its cause. Each entry names the feature that sets the floor.
 */
const FEATURE_FLOORS: Record<string, { version: string; feature: string }> = {
  pg: {
    version: '8.9.0',
    // Older pg takes the function for a socket: `this.stream.setNoDelay is not a function` at the first connection.
    feature: '`stream` given as a function, called per connection (storage/connections/engine-socket.ts)',
  },
};

/** The lowest version of a caret range or an alternation of them (the form the packaging test allows). */
function floorOf(range: string): number[] {
  const floors = range.split(' || ').map((caret) => caret.replace(/^\^/, '').split('.').map(Number));
  return floors.reduce((lowest, floor) => (compare(floor, lowest) < 0 ? floor : lowest));
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

describe("@conveyor/core's peer ranges", () => {
  const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'libs', 'conveyor', 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
  };

  it.each(Object.entries(FEATURE_FLOORS))('let no host install a %s older than the engine needs', (name, { version, feature }) => {
    const floor = floorOf(manifest.peerDependencies[name]).join('.');
    expect({ name, floor, needs: feature, atLeast: compare(floorOf(floor), floorOf(version)) >= 0 }).toEqual({
      name,
      floor,
      needs: feature,
      atLeast: true,
    });
  });
});
