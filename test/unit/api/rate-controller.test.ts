import { describe, expect, it } from 'vitest';
import { RateController, type RateProgress, type SendTicket } from '../../../src/api/rate-controller.js';
import { FakeClock, flush } from './fake-clock.js';

/** A task that stays in flight until released. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { done, release };
}

/** Teaches `rc` a ceiling of ~48.5/s (a burst at 80/s, a 429, 100 successes in 2 s, another 429). */
async function learnAboutFifty(rc: RateController, clock: FakeClock): Promise<number> {
  for (let i = 0; i < 80; i++) await clock.advance(12.5).then(() => rc.onSuccess());
  rc.onRateLimited({ startedAt: clock.now() });
  for (let i = 0; i < 100; i++) await clock.advance(20).then(() => rc.onSuccess());
  rc.onRateLimited({ startedAt: clock.now() });
  const ceiling = rc.progress().rpsLimit ?? 0;
  expect(ceiling).toBeGreaterThan(47);
  expect(ceiling).toBeLessThan(50);
  return ceiling;
}

describe('RateController', () => {
  it('never has more than maxConcurrency tasks in flight and reports progress', async () => {
    const clock = new FakeClock();
    const seen: RateProgress[] = [];
    const rc = new RateController({ maxConcurrency: 3, clock, onProgress: (p) => seen.push(p) });
    const gates = Array.from({ length: 7 }, gate);
    let running = 0;
    let peak = 0;
    const all = gates.map((g) =>
      rc.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await g.done;
        running--;
      }),
    );
    await flush();
    expect(running).toBe(3);
    for (const g of gates) {
      g.release();
      await flush();
    }
    await Promise.all(all);
    expect(peak).toBe(3);
    expect(Math.max(...seen.map((p) => p.inFlight))).toBe(3);
    expect(rc.progress().requests).toBe(7);
  });

  it('halves concurrency once per congestion and grows by one after a success streak', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 8, successStreak: 5, clock, adaptRps: false });
    const early: SendTicket = { startedAt: clock.now() };
    await clock.advance(10);
    rc.onRateLimited({ startedAt: clock.now() });
    expect(rc.progress().concurrency).toBe(4);
    // Another 429 for a request sent before that reaction: the same congestion, no second halving.
    rc.onRateLimited(early);
    expect(rc.progress().concurrency).toBe(4);
    await clock.advance(10);
    rc.onRateLimited({ startedAt: clock.now() });
    expect(rc.progress().concurrency).toBe(2);
    for (let i = 0; i < 5; i++) rc.onSuccess();
    expect(rc.progress().concurrency).toBe(3);
    for (let i = 0; i < 50; i++) rc.onSuccess();
    expect(rc.progress().concurrency).toBe(8);
    expect(rc.progress().rateLimited).toBe(3);
  });

  it('pauses every sender for Retry-After', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, clock, adaptRps: false });
    rc.onRateLimited({ startedAt: clock.now() }, 1000);
    const started: number[] = [];
    const all = [1, 2, 3].map(() => rc.run(async () => void started.push(clock.now())));
    await clock.advance(999);
    expect(started).toEqual([]);
    await clock.advance(1);
    await Promise.all(all);
    expect(started).toEqual([1000, 1000, 1000]);
  });

  it('spaces requests under an rps ceiling', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, rps: 10, clock });
    const started: number[] = [];
    const all = Array.from({ length: 5 }, () => rc.run(async () => void started.push(clock.now())));
    await clock.advance(1000);
    await Promise.all(all);
    expect(started).toEqual([0, 100, 200, 300, 400]);
    expect(rc.progress().rpsLimit).toBe(10);
  });

  it("learns the server's rate from the successes between two 429s", async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, clock });
    expect(rc.progress().rpsLimit).toBeUndefined();
    // Burst at 80/s, then the first 429: a rough ceiling under the recent rate.
    for (let i = 0; i < 80; i++) {
      await clock.advance(12.5);
      rc.onSuccess();
    }
    rc.onRateLimited({ startedAt: clock.now() });
    const rough = rc.progress().rpsLimit ?? 0;
    expect(rough).toBeGreaterThan(60);
    expect(rough).toBeLessThan(80);
    // The bucket is empty now: 100 successes in the next 2 s mean the server refills 50/s.
    for (let i = 0; i < 100; i++) {
      await clock.advance(20);
      rc.onSuccess();
    }
    rc.onRateLimited({ startedAt: clock.now() });
    const learned = rc.progress().rpsLimit ?? 0;
    expect(learned).toBeGreaterThan(47);
    expect(learned).toBeLessThan(50);
    // It then probes upwards slowly: well under 2% in two seconds.
    for (let i = 0; i < 100; i++) {
      await clock.advance(20);
      rc.onSuccess();
    }
    const later = rc.progress().rpsLimit ?? 0;
    expect(later).toBeGreaterThan(learned);
    expect(later).toBeLessThan(learned * 1.02);
  });

  it('does not raise a learned ceiling while the rate sent stays well under it', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, clock });
    const send = async (perSecond: number, seconds: number) => {
      for (let i = 0; i < perSecond * seconds; i++) {
        await clock.advance(1000 / perSecond);
        rc.onSuccess();
      }
    };
    // Learn ~50/s: a burst at 80/s, a 429, then 100 successes in 2 s and another 429.
    await send(80, 1);
    rc.onRateLimited({ startedAt: clock.now() });
    await send(50, 2);
    rc.onRateLimited({ startedAt: clock.now() });
    const learned = rc.progress().rpsLimit ?? 0;
    expect(learned).toBeGreaterThan(47);
    // One cursor chain at 34/s for a minute: the ceiling never held it back, so it stays put
    // (before: +2%/s once quiet, 2.4 x after the minute, and the writes after it burst into 429s).
    await send(34, 60);
    expect(rc.progress().rpsLimit).toBeCloseTo(learned, 5);
    // Sending at the ceiling again: it probes upwards.
    await send(48, 3);
    expect(rc.progress().rpsLimit ?? 0).toBeGreaterThan(learned);
  });

  it('lets a cursor chain go on after a quick page under a learned ceiling; a user --rps stays strict', async () => {
    /** Gaps between the starts of a chain of 40 requests, one after the other, answered in 12 or 30 ms in turn. */
    const chain = async (rc: RateController, clock: FakeClock) => {
      const started: number[] = [];
      const done = (async () => {
        for (let i = 0; i < 40; i++) {
          await rc.run(async () => {
            started.push(clock.now());
            await clock.sleep(i % 2 === 0 ? 12 : 30);
          });
          rc.onSuccess();
        }
      })();
      while (started.length < 40) await clock.advance(1);
      await clock.advance(30);
      await done;
      return started.slice(1).map((t, i) => t - (started[i] as number));
    };
    // Learned ~48.5/s: 20.6 ms apart on average.
    const clock = new FakeClock();
    const learned = new RateController({ maxConcurrency: 4, clock });
    const ceiling = await learnAboutFifty(learned, clock);
    // 21 ms a page on average, under the ceiling: no page waits (before: 20.6 ms after each quick one).
    const gaps = await chain(learned, clock);
    expect(gaps.filter((g, i) => g !== (i % 2 === 0 ? 12 : 30))).toEqual([]);
    // A user's --rps is kept to the letter: never two sends closer than 1000 / rps ms,
    for (const userRps of [48, 100]) {
      const userClock = new FakeClock();
      const rc = new RateController({ maxConcurrency: 4, rps: userRps, clock: userClock });
      // even when the ceiling learned from 429s is the lower one.
      const spacing = 1000 / (userRps === 100 ? await learnAboutFifty(rc, userClock) : userRps);
      expect(rc.progress().rpsLimit).toBeCloseTo(userRps === 100 ? ceiling : userRps, 1);
      expect(Math.min(...(await chain(rc, userClock)))).toBeGreaterThanOrEqual(spacing - 1e-9);
    }
  });

  it('leaves no slack over a Retry-After pause: the first sends after it are spaced', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, clock });
    const ceiling = await learnAboutFifty(rc, clock);
    // Long idle (slack available), then a 429 with Retry-After: 1 s, and three senders waiting.
    await clock.advance(5000);
    rc.onRateLimited({ startedAt: clock.now() }, 1000);
    const pausedUntil = clock.now() + 1000;
    const started: number[] = [];
    const all = Array.from({ length: 3 }, () => rc.run(async () => void started.push(clock.now())));
    await clock.advance(1500);
    await Promise.all(all);
    const interval = 1000 / (rc.progress().rpsLimit ?? ceiling);
    expect(started[0]).toBe(pausedUntil);
    expect((started[1] as number) - (started[0] as number)).toBeCloseTo(interval, 6);
    expect((started[2] as number) - (started[1] as number)).toBeCloseTo(interval, 6);
  });

  it('keeps the user rps ceiling as an upper bound', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, rps: 5, clock });
    for (let i = 0; i < 50; i++) {
      await clock.advance(10);
      rc.onSuccess();
    }
    rc.onRateLimited({ startedAt: clock.now() });
    expect(rc.progress().rpsLimit).toBe(5);
  });
});

describe('RateController without a sample', () => {
  it('does not learn a ceiling when the very first request is refused (only concurrency halves)', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, clock });
    rc.onRateLimited({ startedAt: clock.now() });
    expect(rc.progress().rpsLimit).toBeUndefined();
    expect(rc.progress().concurrency).toBe(2);
  });
});

describe('RateController background requests', () => {
  /** Runs a chain of `count` requests one after another, each answered in `ms`; the start times. */
  function chain(
    rc: RateController,
    clock: FakeClock,
    count: number,
    ms: number,
    priority: 'normal' | 'background',
    signal?: AbortSignal,
  ) {
    const started: number[] = [];
    const done = (async () => {
      for (let i = 0; i < count; i++) {
        await rc.run(
          async () => {
            started.push(clock.now());
            await clock.sleep(ms);
          },
          signal,
          priority,
        );
        rc.onSuccess();
      }
    })();
    return { started, done };
  }

  /** The background chain's starts up to the lead's last one. */
  const whileLeadWent = (lead: { started: number[] }, spare: { started: number[] }) =>
    spare.started.filter((t) => t <= (lead.started.at(-1) as number));
  /** Time between consecutive starts. */
  const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number));

  it('take one send in five while normal requests go, and go freely once they stop', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, clock });
    const lead = chain(rc, clock, 40, 20, 'normal');
    const spare = chain(rc, clock, 40, 20, 'background');
    await clock.advance(800);
    await lead.done;
    const during = whileLeadWent(lead, spare).length;
    expect(during).toBeGreaterThanOrEqual(8);
    expect(during).toBeLessThanOrEqual(1 + 40 / 4);
    // Alone, it goes at its own pace (after the lead's last send has been idle for a while).
    await clock.advance(2000);
    await spare.done;
    const after = spare.started.slice(during);
    expect(gaps(after)).toEqual(Array(after.length - 1).fill(20));
  });

  it('wait for their share while a normal request is out, however long it takes', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, clock });
    // Pages of 400 ms: longer than the time after which normal requests count as stopped.
    const lead = chain(rc, clock, 12, 400, 'normal');
    const spare = chain(rc, clock, 12, 20, 'background');
    await clock.advance(5000);
    await lead.done;
    expect(whileLeadWent(lead, spare).length).toBeLessThanOrEqual(1 + 12 / 4);
    await clock.advance(1000);
    await spare.done;
    expect(spare.started).toHaveLength(12);
  });

  it('never delay a normal chain under a learned ceiling, and keep the rate under it', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, clock });
    const ceiling = await learnAboutFifty(rc, clock);
    await clock.advance(1000);
    // The lead needs 43 of the ~48.5 sends a second; the background chain is always ready.
    const lead = chain(rc, clock, 120, 23, 'normal');
    const spare = chain(rc, clock, 120, 1, 'background');
    await clock.advance(6000);
    await lead.done;
    expect(gaps(lead.started)).toEqual(Array(119).fill(23));
    const during = whileLeadWent(lead, spare);
    expect(during.length).toBeGreaterThan(5);
    // Any second of the lead's life: what the spacing allows anyone (one interval of slack, one
    // send at the window's edge), so the background took only what the lead left.
    const all = [...lead.started, ...during].sort((a, b) => a - b);
    for (const t of all) {
      expect(all.filter((u) => u >= t && u < t + 1000).length).toBeLessThanOrEqual(Math.floor(ceiling) + 2);
    }
    await clock.advance(3000);
    await spare.done;
  });

  it('go at once when the normal ones are said to have ended (normalEnded), not after waiting for more', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, clock });
    const lead = chain(rc, clock, 1, 20, 'normal');
    const spare = chain(rc, clock, 1, 20, 'background');
    await clock.advance(20);
    await lead.done;
    // The lead's one page is in: without word, the background request waits to see if more come.
    await clock.advance(10);
    expect(spare.started).toEqual([]);
    rc.normalEnded();
    await clock.advance(0);
    expect(spare.started).toEqual([30]);
    await clock.advance(20);
    await spare.done;
  });

  it('stop waiting when their signal is aborted', async () => {
    const clock = new FakeClock();
    const rc = new RateController({ maxConcurrency: 4, clock });
    const lead = chain(rc, clock, 20, 20, 'normal');
    const stop = new AbortController();
    const spare = chain(rc, clock, 20, 20, 'background', stop.signal);
    let failure: unknown;
    void spare.done.catch((error: unknown) => (failure = error));
    // One background send at 60 ms (after four of the lead's), answered at 80; the next waits.
    await clock.advance(90);
    const sent = spare.started.length;
    expect(sent).toBe(1);
    stop.abort(new Error('stopped'));
    // At once: not at the lead's next send.
    await clock.advance(1);
    expect(failure).toEqual(new Error('stopped'));
    expect(spare.started).toHaveLength(sent);
    await clock.advance(400);
    await lead.done;
  });
});
