import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CENSOR, REDACTED_FIELDS, redactLogFields } from '../adapters/logger/log-redaction.ts';
import { createLogger } from '../adapters/logger/logger.ts';

/** What a logger writes, as text and as parsed JSON lines. */
function capture() {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('log redaction', () => {
  it.each([...REDACTED_FIELDS])('censors %s at the top, nested, and inside arrays', (field) => {
    const fields = {
      [field]: 'top-value',
      user: { [field]: 'nested-value', name: 'Ada' },
      request: { headers: { [field]: 'header-value', accept: 'json' } },
      list: [{ [field]: 'item-value' }, 'plain'],
    };
    const redacted = redactLogFields(fields);
    expect(redacted).toEqual({
      [field]: CENSOR,
      user: { [field]: CENSOR, name: 'Ada' },
      request: { headers: { [field]: CENSOR, accept: 'json' } },
      list: [{ [field]: CENSOR }, 'plain'],
    });
    expect(JSON.stringify(redacted)).not.toMatch(/-value/);
  });

  it('never changes the logged object, and answers it unchanged when nothing is secret', () => {
    const nested = { password: 'hunter2' };
    const fields = { user: nested, list: [nested] };
    redactLogFields(fields);
    expect(fields).toEqual({ user: { password: 'hunter2' }, list: [{ password: 'hunter2' }] });

    const plain = { method: 'GET', path: '/api/auth/me', status: 200, durationMs: 1.2, nested: { a: [1] } };
    expect(redactLogFields(plain)).toBe(plain);
  });

  it('searches four levels below the line, and leaves errors, dates and class instances as they are', () => {
    const fourDeep = { a: { b: { c: { d: { password: 'x' } } } } };
    expect(redactLogFields(fourDeep)).toEqual({ a: { b: { c: { d: { password: CENSOR } } } } });
    const fiveDeep = { a: { b: { c: { d: { e: { password: 'deep' } } } } } };
    expect(redactLogFields(fiveDeep)).toBe(fiveDeep);

    const error = Object.assign(new Error('failed'), { code: 'E1' });
    const date = new Date(0);
    const fields = { err: error, at: date, password: 'x' };
    const redacted = redactLogFields(fields);
    expect(redacted.err).toBe(error);
    expect(redacted.at).toBe(date);
  });

  it('cuts a cycle, and bounds how much of a wide line it searches', () => {
    const line: Record<string, unknown> = { password: 'x', name: 'loop' };
    line.self = line;
    const redacted = redactLogFields(line);
    expect(redacted).toEqual({ password: CENSOR, name: 'loop', self: '[circular]' });

    // Four levels of 60 keys, each level's keys all holding the same object of the next level:
    // no cycle, but 60⁴ paths without a bound.
    let wide: Record<string, unknown> = { leaf: 1 };
    for (let level = 0; level < 4; level++) {
      const next: Record<string, unknown> = {};
      for (let i = 0; i < 60; i++) next[`k${i}`] = wide;
      wide = next;
    }
    const out = redactLogFields({ wide, password: 'x' });
    expect(out.password).toBe(CENSOR);
    expect(JSON.stringify(out)).toContain('[truncated]');
  });

  it('searches an error’s own fields, and knows header names in either case', () => {
    const json = capture();
    const logger = createLogger('info', json.stream);
    const error = Object.assign(new Error('upstream refused'), {
      password: 'hunter2',
      headers: { Authorization: 'Bearer dk_secret', 'set-cookie': 'session=abc' },
    });
    logger.error({ err: error }, 'failed');
    const [line] = json.lines();
    expect(line).toMatchObject({
      msg: 'failed',
      err: {
        message: 'upstream refused',
        password: CENSOR,
        headers: { Authorization: CENSOR, 'set-cookie': CENSOR },
      },
    });
    expect(json.text()).not.toMatch(/hunter2|dk_secret|session=abc/);
  });

  it('applies to what a logger writes: the line, a child logger’s bindings, and the pretty format', () => {
    const json = capture();
    const logger = createLogger('info', json.stream);
    logger.info({ password: 'hunter2', user: { secret: 's3', name: 'Ada' } }, 'saved');
    logger.child({ cookie: 'session=abc' }).info({ slides: 3 }, 'child line');
    const [line, childLine] = json.lines();
    expect(line).toMatchObject({ msg: 'saved', password: CENSOR, user: { secret: CENSOR, name: 'Ada' } });
    expect(childLine).toMatchObject({ msg: 'child line', cookie: CENSOR, slides: 3 });

    const pretty = capture();
    createLogger('info', pretty.stream, 'pretty').info(
      { databaseUrl: 'postgres://u:pw@h/db' },
      'pretty line',
    );
    expect(pretty.text()).toContain('pretty line');
    expect(pretty.text()).not.toContain('pw@h');
  });
});
