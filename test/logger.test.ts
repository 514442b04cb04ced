import { execFile } from 'node:child_process';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { chooseLogFormat } from '../adapters/logger/logger.ts';
import { ConfigError, loadConfig } from '../app/config.ts';
import { childEnv, projectRoot } from './helpers/processes.ts';

describe('log format', () => {
  it.each([
    // forced, terminal, production → format
    [undefined, true, false, 'pretty'],
    [undefined, true, true, 'json'],
    [undefined, false, false, 'json'],
    [undefined, false, true, 'json'],
    ['json', true, false, 'json'],
    ['pretty', false, false, 'pretty'],
    ['pretty', false, true, 'pretty'],
  ] as const)('LOG_FORMAT=%s, terminal %s, production %s → %s', (forced, isTTY, production, expected) => {
    expect(chooseLogFormat({ forced, isTTY, production })).toBe(expected);
  });

  it('LOG_FORMAT takes json or pretty (unset or empty: chosen per stream)', () => {
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadConfig({ LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: '' }).logFormat).toBeUndefined();
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: 'yaml' })).toThrow(/LOG_FORMAT/);
  });

  /**
   * A command's logger as a person or a pipe sees it: `script` gives the child a real
   * terminal; without it, stdout is a pipe.
   */
  function logFrom(env: Record<string, string>, terminal: boolean): Promise<string> {
    const code = [
      "const { loadConfig } = await import('./app/config.ts');",
      "const { createProcessLogger } = await import('./adapters/logger/logger.ts');",
      "createProcessLogger(loadConfig()).info({ password: 'hunter2-secret', slides: 3 }, 'deck saved');",
    ].join(' ');
    const node = [process.execPath, '--input-type=module', '-e', code];
    const [file, args] = terminal
      ? ['script', ['-qec', node.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' '), '/dev/null']]
      : [node[0]!, node.slice(1)];
    return new Promise((resolve, reject) =>
      execFile(file, args, { cwd: projectRoot, env: childEnv(env) }, (error, stdout) =>
        error ? reject(error) : resolve(stripVTControlCharacters(stdout)),
      ),
    );
  }

  it('is pretty on a terminal in development, JSON on a pipe or in production, and redacts both', async () => {
    const onTerminal = await logFrom({ NODE_ENV: 'development' }, true);
    expect(onTerminal).toMatch(/INFO.*deck saved/);
    expect(onTerminal).toMatch(/slides: 3/);
    expect(onTerminal).not.toContain('{"level"');

    const onPipe = await logFrom({ NODE_ENV: 'development' }, false);
    expect(JSON.parse(onPipe)).toMatchObject({
      level: 30,
      msg: 'deck saved',
      slides: 3,
      password: '[redacted]',
    });

    const inProduction = await logFrom({ NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40) }, true);
    expect(JSON.parse(inProduction.trim())).toMatchObject({ msg: 'deck saved' });

    const forcedJson = await logFrom({ NODE_ENV: 'development', LOG_FORMAT: 'json' }, true);
    expect(JSON.parse(forcedJson.trim())).toMatchObject({ msg: 'deck saved' });

    const forcedPretty = await logFrom(
      { NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40), LOG_FORMAT: 'pretty' },
      false,
    );
    expect(forcedPretty).toMatch(/INFO.*deck saved/);

    for (const output of [onTerminal, onPipe, inProduction, forcedJson, forcedPretty]) {
      expect(output).not.toContain('hunter2-secret');
    }
  });
});
