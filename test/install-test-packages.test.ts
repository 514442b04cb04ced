import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from './helpers/processes.ts';

/**
 * `npm test`'s pretest step, run with a PATH of stubs only (`id`, `apt-get`, `sudo` and the
 * programs the tests need), so that every branch runs without touching this machine's packages.
 */
const SCRIPT = path.join(projectRoot, 'scripts/install-test-packages.sh');
const PROGRAMS: Record<string, string> = {
  chromium: 'chromium',
  swift: 'swift-ring-builder',
  'swift-proxy': 'swift-proxy-server',
  'swift-account': 'swift-account-server',
  'swift-container': 'swift-container-server',
  'swift-object': 'swift-object-server',
  'libreoffice-writer-nogui': 'soffice',
  haproxy: 'haproxy',
  prometheus: 'prometheus',
  'poppler-utils': 'pdfinfo',
  qpdf: 'qpdf',
  ffmpeg: 'ffprobe',
};
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function stub(dir: string, name: string, body: string) {
  const file = path.join(dir, name);
  await writeFile(file, `#!/bin/bash\n${body}\n`);
  await chmod(file, 0o755);
}

/** A machine: which packages are installed, who we are, and how apt and sudo behave. */
async function machine(options: {
  installed: string[];
  uid?: number;
  aptGet?: 'works' | 'no network' | 'absent';
  sudo?: 'password-less' | 'asks for a password' | 'absent';
}) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'deck-pretest-'));
  dirs.push(dir);
  const log = path.join(dir, 'calls.log');
  await writeFile(log, '');
  for (const pkg of options.installed) await stub(dir, PROGRAMS[pkg]!, 'exit 0');
  const uid = options.uid ?? 0;
  await stub(dir, 'true', 'exit 0');
  await stub(dir, 'id', `case "$1" in -u) echo ${uid};; -un) echo tester;; esac`);
  if ((options.aptGet ?? 'works') !== 'absent') {
    const noNetwork = options.aptGet === 'no network';
    const installs = Object.entries(PROGRAMS)
      .map(
        ([pkg, program]) =>
          `[ "$p" = ${pkg} ] && printf '#!/bin/bash\\nexit 0\\n' > ${dir}/${program} && chmod +x ${dir}/${program}`,
      )
      .join('\n    ');
    await stub(
      dir,
      'apt-get',
      `echo "apt-get $* (uid $(id -u))" >> ${log}
if [ "$1" = update ]; then ${noNetwork ? "echo 'E: Failed to fetch' >&2; exit 100" : 'exit 0'}; fi
if [ "$1" = install ]; then
  for p in "$@"; do
    ${installs}
  done
fi
exit 0`,
    );
  }
  if (options.sudo === 'password-less') {
    await stub(dir, 'sudo', `[ "$1" = -n ] && shift; echo "sudo $*" >> ${log}; exec "$@"`);
  } else if (options.sudo === 'asks for a password') {
    await stub(dir, 'sudo', `echo "sudo: a password is required" >&2; exit 1`);
  }
  return {
    async run(env: Record<string, string> = {}) {
      const started = performance.now();
      const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile('/bin/bash', [SCRIPT], { env: { PATH: dir, ...env } }, (error, _stdout, stderr) =>
          resolve({ code: error ? Number(error.code) : 0, stderr }),
        );
      });
      const calls = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
      return { ...result, calls, ms: performance.now() - started };
    },
  };
}

describe('scripts/install-test-packages.sh (pretest)', () => {
  it('is quick and calls no apt when every program is there', async () => {
    const m = await machine({ installed: Object.keys(PROGRAMS), uid: 1000, aptGet: 'works' });
    const result = await m.run();
    expect(result).toMatchObject({ code: 0, stderr: '', calls: [] });
    expect(result.ms).toBeLessThan(1000);
  });

  it('takes CHROMIUM_PATH instead of the chromium package, and refuses one that is not executable', async () => {
    const swiftOnly = Object.keys(PROGRAMS).filter((p) => p !== 'chromium');
    const m = await machine({ installed: swiftOnly, uid: 1000 });
    expect(await m.run({ CHROMIUM_PATH: '/bin/bash' })).toMatchObject({ code: 0, calls: [] });
    const wrong = await m.run({ CHROMIUM_PATH: '/nonexistent/chrome' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('CHROMIUM_PATH=/nonexistent/chrome is not an executable file');
  });

  it('as root installs exactly the missing packages, updating the lists once', async () => {
    const m = await machine({ installed: ['swift', 'swift-object'] });
    const result = await m.run();
    expect(result.code).toBe(0);
    expect(result.calls).toEqual([
      'apt-get update -qq (uid 0)',
      'apt-get install -y -qq chromium swift-proxy swift-account swift-container libreoffice-writer-nogui haproxy prometheus poppler-utils qpdf ffmpeg (uid 0)',
    ]);
    // Installed now: a second run only looks.
    expect(await m.run()).toMatchObject({ code: 0, calls: result.calls });
  });

  it('uses password-less sudo when not root', async () => {
    const m = await machine({ installed: ['chromium'], uid: 1000, sudo: 'password-less' });
    const result = await m.run();
    expect(result.code).toBe(0);
    expect(result.calls).toEqual([
      'sudo true',
      'sudo apt-get update -qq',
      'apt-get update -qq (uid 1000)',
      'sudo apt-get install -y -qq swift swift-proxy swift-account swift-container swift-object libreoffice-writer-nogui haproxy prometheus poppler-utils qpdf ffmpeg',
      'apt-get install -y -qq swift swift-proxy swift-account swift-container swift-object libreoffice-writer-nogui haproxy prometheus poppler-utils qpdf ffmpeg (uid 1000)',
    ]);
  });

  it.each([
    ['not root, sudo needs a password', { uid: 1000, sudo: 'asks for a password' as const }, /needs root/],
    ['not root, no sudo', { uid: 1000, sudo: 'absent' as const }, /needs root \(this is user tester/],
    ['no apt-get', { aptGet: 'absent' as const }, /has no apt-get/],
    ['no network', { aptGet: 'no network' as const }, /apt-get update failed .*network/],
  ])('stops with what to do when it cannot install: %s', async (_name, options, reason) => {
    const m = await machine({ installed: ['swift', 'swift-proxy', 'swift-account'], ...options });
    const result = await m.run();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'npm test needs Debian packages that are not installed: chromium swift-container swift-object libreoffice-writer-nogui haproxy prometheus poppler-utils qpdf ffmpeg',
    );
    expect(result.stderr).toMatch(reason);
    expect(result.stderr).toContain(
      'apt-get update && apt-get install -y chromium swift-container swift-object libreoffice-writer-nogui haproxy prometheus poppler-utils qpdf ffmpeg',
    );
    expect(result.calls.filter((call) => call.includes('install'))).toEqual([]);
  });
});
