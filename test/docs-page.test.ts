import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's chromium (see .ci/run) or set CHROMIUM_PATH`,
    );
  }
  t = await startTestApp();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('GET /api/docs in a real browser', () => {
  it('renders the reference from the OpenAPI document, with every asset served by the service', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    const failed: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('requestfailed', (request) => failed.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    const response = await page.goto(`${t.url}/api/docs`);
    expect(response?.status()).toBe(200);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });

    const text = await page.locator('#reference').textContent();
    expect(text).toContain('Deck service API');
    const operations = await page.locator('.opblock-summary-path').allInnerTexts();
    expect(operations.map((o) => o.replace(/\u200b/g, ''))).toEqual(
      expect.arrayContaining(['/auth/login', '/auth/me', '/decks', '/decks/{deckId}']),
    );
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
    // No CDN: every request went to the service itself.
    expect(requested.filter((url) => !url.startsWith(t.url))).toEqual([]);
    await page.close();
  });
});
