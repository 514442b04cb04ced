import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

// Issue 9, item 12, in a real browser: a page of another origin on the same site (another
// port of the same host, like a sibling subdomain: the SameSite=Lax cookie IS sent) submits
// plain HTML forms to the service. They must change nothing; the service's own pages still work.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let t: TestApp;
let browser: Browser;
let attacker: Server;
let attackerUrl: string;

/** The attacker's page: one auto-submitting form, as `?form=<enctype>&action=<path>` asks. */
function attackerPage(target: string, url: URL): string {
  const action = `${target}${url.searchParams.get('action')}`;
  const enctype = url.searchParams.get('form') ?? 'application/x-www-form-urlencoded';
  return `<!doctype html><form method="post" action="${action}" enctype="${enctype}">
    <input name="anything" value="x"></form>
    <script>document.forms[0].submit()</script>`;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's chromium (see .ci/run) or set CHROMIUM_PATH`,
    );
  }
  t = await startTestApp();
  attacker = createServer((request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end(attackerPage(t.url, new URL(request.url!, 'http://attacker')));
  });
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  await t?.close();
});

/** A browser context signed in as a fresh user (its cookie jar holds the `session` cookie). */
async function signedInBrowser() {
  const user = await t.signedInClient();
  const context = await browser.newContext();
  await context.addCookies([...user.cookies].map(([name, value]) => ({ name, value, url: t.url })));
  return { user, context };
}

describe('HTML forms from another origin of the same site', () => {
  for (const [enctype, action] of [
    ['multipart/form-data', '/trpc/auth.logOut'],
    ['application/x-www-form-urlencoded', '/trpc/auth.logOut'],
    ['application/x-www-form-urlencoded', '/api/auth/logout'],
    ['multipart/form-data', '/api/images'],
  ] as const) {
    it(`cannot POST ${enctype} to ${action} with the victim's cookie`, async () => {
      const { user, context } = await signedInBrowser();
      const page = await context.newPage();
      const submitted = page.waitForResponse((response) => response.url() === `${t.url}${action}`);
      await page.goto(`${attackerUrl}/?form=${encodeURIComponent(enctype)}&action=${action}`);
      const response = await submitted;
      const request = response.request();
      // The browser did send the cookie: only the service's check stands in the way.
      expect(await request.headerValue('cookie')).toContain('session=');
      expect(await request.headerValue('origin')).toBe(attackerUrl);
      expect(response.status()).toBe(403);
      expect((await user.get('/api/auth/me')).status).toBe(200);
      expect((await user.get('/api/images')).body.images).toEqual([]);
      await context.close();
    });
  }
});

describe("the service's own pages", () => {
  it('still change things with the cookie (fetch and a form, from the same origin)', async () => {
    const { user, context } = await signedInBrowser();
    const page = await context.newPage();
    await page.goto(`${t.url}/healthz`);
    const status = await page.evaluate(async () => {
      const response = await fetch('/api/decks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'From the page' }),
      });
      return response.status;
    });
    expect(status).toBe(201);
    expect((await user.get('/api/decks')).body.decks.map((d: any) => d.name)).toEqual(['From the page']);

    const signedOut = page.waitForResponse((response) => response.url() === `${t.url}/api/auth/logout`);
    await page.evaluate(() => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = '/api/auth/logout';
      document.body.append(form);
      form.submit();
    });
    expect((await signedOut).status()).toBe(200);
    expect((await user.get('/api/auth/me')).status).toBe(401);
    await context.close();
  });
});
