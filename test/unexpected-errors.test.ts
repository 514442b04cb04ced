import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
let owner: HttpClient;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signedInClient();
});

afterAll(async () => {
  await t?.close();
});

const sql = (text: string) => t.app.database.orm.em.getConnection().execute(text);

describe('an unexpected error', () => {
  it("answers /trpc with a generic message: the driver's text (naming tables) stays in the log", async () => {
    await sql('alter table api_key rename to api_key_gone');
    try {
      const response = await owner.request('POST', '/trpc/apiKeys.createApiKey', {
        json: { name: 'ci', access: 'read' },
      });
      expect(response.status).toBe(500);
      expect(response.body.error.message).toBe('An unexpected error occurred');
      expect(response.text).not.toMatch(/relation|api_key_gone|api_key/);
      const rest = await owner.post('/api/api-keys', { name: 'ci', access: 'read' });
      expect(rest.status).toBe(500);
      expect(rest.text).not.toMatch(/relation/);
    } finally {
      await sql('alter table api_key_gone rename to api_key');
    }
    expect(t.logs()).toMatch(/relation/);
  });
});

describe('the /api prefix', () => {
  it('is matched as written: /API/… is a 404, not a route that ignores the session cookie', async () => {
    expect((await owner.get('/api/auth/me')).status).toBe(200);
    const shouted = await owner.get('/API/auth/me');
    expect(shouted.status).toBe(404);
    expect((await owner.post('/API/auth/logout')).status).toBe(404);
    expect((await owner.get('/api/auth/me')).status).toBe(200);
  });
});
