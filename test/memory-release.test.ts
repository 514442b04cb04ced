import { describe, expect, it } from 'vitest';
import { createIdleCollector } from '../app/memory-release.ts';

/** The idle collector's policy (app/memory-release.ts); what it saves is `npm run bench:memory`'s. */
describe('memory released when the service falls idle', () => {
  function collector() {
    let collections = 0;
    const idle = createIdleCollector(() => {
      collections += 1;
    });
    return { idle, collections: () => collections };
  }

  it('collects nothing while no request has come since the last collection', () => {
    const { idle, collections } = collector();
    for (let i = 0; i < 5; i += 1) idle.check();
    expect(collections()).toBe(0);
  });

  it('collects nothing while requests keep coming, once at the first quiet check, then waits for work', () => {
    const { idle, collections } = collector();
    for (let i = 0; i < 3; i += 1) {
      idle.request();
      idle.request();
      idle.finished();
      idle.finished();
      idle.check();
    }
    expect(collections()).toBe(0);
    idle.check();
    expect(collections()).toBe(1);
    idle.check();
    idle.check();
    expect(collections()).toBe(1);
  });

  it('collects again after each new busy period', () => {
    const { idle, collections } = collector();
    idle.request();
    idle.finished();
    idle.check();
    idle.check();
    idle.request();
    idle.finished();
    idle.check();
    idle.check();
    expect(collections()).toBe(2);
  });

  it('collects nothing while a request is still open (an event stream, a slow upload), and once it ends', () => {
    const { idle, collections } = collector();
    idle.request();
    for (let i = 0; i < 5; i += 1) idle.check();
    expect(collections()).toBe(0);
    idle.finished();
    idle.check();
    expect(collections()).toBe(1);
  });
});
