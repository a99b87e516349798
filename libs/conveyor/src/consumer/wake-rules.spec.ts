import { CLOCK_SLACK_MS, WakeRules } from './wake-rules';

const INTERVAL = 1_000;
const tally = (taken: number, asked: number, more: Partial<{ capped: boolean; shortClaimsMayLeaveWork: boolean }> = {}) => ({
  taken,
  asked,
  capped: more.capped ?? false,
  shortClaimsMayLeaveWork: more.shortClaimsMayLeaveWork ?? false,
});

describe('WakeRules', () => {
  let rules: WakeRules;
  beforeEach(() => (rules = new WakeRules(INTERVAL)));

  describe('freed room', () => {
    it('claims while more work is likely and the pool wants a refill', () => {
      expect(rules.onCapacity(true)).toBe(true);
      expect(rules.onCapacity(false)).toBe(false);
    });

    it('rests after a short claim, until a due time makes more work likely again', () => {
      rules.onClaimed(tally(3, 10), 0);
      expect(rules.onCapacity(true)).toBe(false);
      rules.onDue(5_000, 5_000);
      expect(rules.onCapacity(true)).toBe(true);
    });

    it('keeps claiming after a full claim, a capped one, or a short one from a strategy that may lose races', () => {
      rules.onClaimed(tally(10, 10), 0);
      expect(rules.onCapacity(true)).toBe(true);
      rules.onClaimed(tally(0, 10, { capped: true }), 0);
      expect(rules.onCapacity(true)).toBe(true);
      rules.onClaimed(tally(4, 10, { shortClaimsMayLeaveWork: true }), 0);
      expect(rules.onCapacity(true)).toBe(true);
      rules.onClaimed(tally(0, 10, { shortClaimsMayLeaveWork: true }), 0);
      expect(rules.onCapacity(true)).toBe(false);
    });

    it('makes more work likely again when jobs are due now', () => {
      rules.onClaimed(tally(0, 10), 0);
      rules.onDueNow();
      expect(rules.moreWorkLikely).toBe(true);
    });

    it('makes more work likely again when the due timer fires', () => {
      rules.onClaimed(tally(0, 10), 0);
      rules.onTimer(0);
      expect(rules.moreWorkLikely).toBe(true);
    });
  });

  describe('due times', () => {
    const now = 1_000_000;

    it('claims a due time that has come, arms no timer and keeps nothing for it', () => {
      expect(rules.onDue(now - 5, now)).toEqual({ claimNow: true, timerAt: null });
      expect(rules.onDue(now, now)).toEqual({ claimNow: true, timerAt: null });
      expect(rules.onTimer(now)).toBeNull();
    });

    it('claims one within the clock slack now, and arms the timer for it as well', () => {
      expect(rules.onDue(now + CLOCK_SLACK_MS, now)).toEqual({ claimNow: true, timerAt: now + CLOCK_SLACK_MS });
    });

    it('arms the timer for the earliest due time, and after it fires, for the next', () => {
      expect(rules.onDue(now + 500, now)).toEqual({ claimNow: false, timerAt: now + 500 });
      expect(rules.onDue(now + 800, now)).toEqual({ claimNow: false, timerAt: null });
      expect(rules.onDue(now + 300, now)).toEqual({ claimNow: false, timerAt: now + 300 });
      expect(rules.onTimer(now + 300)).toBe(now + 500);
      expect(rules.onTimer(now + 500)).toBe(now + 800);
      expect(rules.onTimer(now + 800)).toBeNull();
      expect(rules.onDue(now + 900, now)).toEqual({ claimNow: false, timerAt: now + 900 });
    });

    it('forgets due times the timer fired past, however late it fired', () => {
      rules.onDue(now + 100, now);
      rules.onDue(now + 200, now);
      rules.onDue(now + 700, now);
      expect(rules.onTimer(now + 650)).toBe(now + 700);
    });
  });

  describe('fallback tick', () => {
    it('claims when this instance has not queried the database since the last tick', () => {
      expect(rules.onFallbackTick(10_000)).toBe(true);
    });

    it('skips a tick within half an interval of a claim', () => {
      rules.onClaimed(tally(0, 10), 10_000);
      expect(rules.onFallbackTick(10_000 + INTERVAL / 2 - 1)).toBe(false);
      expect(rules.onFallbackTick(10_000 + INTERVAL / 2)).toBe(true);
    });

    it('skips the one tick after a query of its own (maintenance round, LISTEN probe)', () => {
      rules.onOwnQuery();
      expect(rules.onFallbackTick(10_000)).toBe(false);
      expect(rules.onFallbackTick(11_000)).toBe(true);
    });

    it('skips one tick per query of its own: a round and a probe in one interval skip the next two ticks', () => {
      rules.onOwnQuery();
      rules.onOwnQuery();
      expect(rules.onFallbackTick(10_000)).toBe(false);
      expect(rules.onFallbackTick(11_000)).toBe(false);
      expect(rules.onFallbackTick(12_000)).toBe(true);
    });

    it('claims at least every third tick however often it queries on its own, and carries over at most two', () => {
      const claims: boolean[] = [];
      for (let tick = 0; tick < 9; tick++) {
        for (let q = 0; q < 5; q++) rules.onOwnQuery();
        claims.push(rules.onFallbackTick(10_000 + tick * INTERVAL));
      }
      expect(claims).toEqual([false, false, true, false, false, true, false, false, true]);
      // Queries stop: what is owed is at most two ticks.
      expect([20, 21, 22, 23].map((s) => rules.onFallbackTick(s * 1_000))).toEqual([false, false, true, true]);
    });
  });

  describe('after a claim', () => {
    it('goes again when woken meanwhile, or when the claim was full and there is room', () => {
      expect(rules.claimAgain(false, true, 0)).toBe(true);
      expect(rules.claimAgain(true, false, 1)).toBe(true);
      expect(rules.claimAgain(true, false, 0)).toBe(false);
      expect(rules.claimAgain(false, false, 5)).toBe(false);
    });

    it('says whether the claim was full', () => {
      expect(rules.onClaimed(tally(10, 10), 0)).toBe(true);
      expect(rules.onClaimed(tally(9, 10), 0)).toBe(false);
    });
  });

  describe('claims that lost every race', () => {
    it('claim again shortly once, not after two such claims in a row', () => {
      expect(rules.onLostRaces(true)).toBe(true);
      expect(rules.onLostRaces(true)).toBe(false);
      expect(rules.onLostRaces(true)).toBe(true);
      expect(rules.onLostRaces(false)).toBe(false);
      expect(rules.onLostRaces(true)).toBe(true);
    });
  });
});
