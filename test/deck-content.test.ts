import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as fixtures from './helpers/fixtures.ts';
import { expectProblem, type HttpClient } from './helpers/http-client.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

let t: TestApp;
let user: HttpClient & { organizationId: string };
let deckId: string;

beforeAll(async () => {
  t = await startTestApp();
  user = await t.signedInClient();
});
afterAll(() => t.close());
beforeEach(async () => {
  deckId = (await user.post('/api/decks', { name: 'Content' })).body.id;
});

const eventTypes = (aggregateId: string) => t.eventTypes(aggregateId);

describe('branding', () => {
  it('is null before the first save, then created and replaced by PUT', async () => {
    expect((await user.get(`/api/decks/${deckId}/branding`)).body).toEqual({ branding: null });

    const logo = `org/${user.organizationId}/images/logo.png`;
    await t.app.services.storage.put(logo, Buffer.from('png'), 'image/png');
    const saved = await user.put(`/api/decks/${deckId}/branding`, { ...fixtures.branding, logo });
    expect(saved.status).toBe(200);
    expect(saved.body.branding).toEqual({
      ...fixtures.branding,
      logo,
      avatar: null,
      updatedAt: expect.any(String),
    });
    expect((await user.get(`/api/decks/${deckId}/branding`)).body).toEqual(saved.body);

    // PUT replaces: optional fields left out are cleared.
    const { palette, cta } = fixtures.branding;
    const replaced = await user.put(`/api/decks/${deckId}/branding`, { palette, cta });
    expect(replaced.body.branding).toMatchObject({
      palette,
      cta,
      name: null,
      logo: null,
      fonts: null,
      contact: null,
    });
    expect(await eventTypes(deckId)).toEqual([
      'deck.created',
      'deck.branding_updated',
      'deck.branding_updated',
    ]);
  });

  it.each([
    ['no palette', { cta: fixtures.branding.cta }, 'palette'],
    ['no cta', { palette: fixtures.branding.palette }, 'cta'],
    [
      'a palette member missing',
      { ...fixtures.branding, palette: { ...fixtures.branding.palette, text: undefined } },
      'palette.text',
    ],
    [
      'a colour that is not hex',
      { ...fixtures.branding, palette: { ...fixtures.branding.palette, accent: 'orange' } },
      'palette.accent',
    ],
    [
      'a four-digit hex colour',
      { ...fixtures.branding, palette: { ...fixtures.branding.palette, primary: '#abcd' } },
      'palette.primary',
    ],
    [
      'a cta member missing',
      { ...fixtures.branding, cta: { ...fixtures.branding.cta, buttonText: undefined } },
      'cta.buttonText',
    ],
    [
      'a javascript: button URL',
      { ...fixtures.branding, cta: { ...fixtures.branding.cta, buttonUrl: 'javascript:alert(1)' } },
      'cta.buttonUrl',
    ],
    [
      'a contact e-mail that is not one',
      { ...fixtures.branding, contact: { email: 'sales at acme' } },
      'contact.email',
    ],
    [
      'a logo of another organization',
      { ...fixtures.branding, logo: `org/${randomUUID()}/logo.png` },
      'logo',
    ],
    [
      'an avatar that is not an object key',
      { ...fixtures.branding, avatar: 'https://x.test/a.png' },
      'avatar',
    ],
  ])('rejects %s with 400, changing nothing', async (_label, body, field) => {
    const problem = expectProblem(await user.put(`/api/decks/${deckId}/branding`, body), 400, 'BAD_REQUEST');
    expect(problem.issues?.map((i) => i.path.join('.'))).toContain(field);
    expect((await user.get(`/api/decks/${deckId}/branding`)).body).toEqual({ branding: null });
    expect(await eventTypes(deckId)).toEqual(['deck.created']);
  });
});

describe('action configs', () => {
  it('creates a draft by default (201), lists, gets, publishes, unpublishes and deletes', async () => {
    const created = await user.post(`/api/decks/${deckId}/action-configs`, fixtures.actionConfig);
    expect(created.status).toBe(201);
    const config = created.body;
    expect(config).toEqual({
      ...fixtures.actionConfig,
      id: expect.any(String),
      deckId,
      status: 'draft',
      publishedAt: null,
      createdAt: expect.any(String),
      updatedAt: config.createdAt,
    });
    expect((await user.get(`/api/decks/${deckId}/action-configs`)).body).toEqual({ actionConfigs: [config] });
    expect((await user.get(`/api/action-configs/${config.id}`)).body).toEqual(config);

    const published = (await user.patch(`/api/action-configs/${config.id}`, { status: 'published' })).body;
    expect(published.status).toBe('published');
    expect(Date.parse(published.publishedAt)).not.toBeNaN();
    const draft = (await user.patch(`/api/action-configs/${config.id}`, { status: 'draft', repName: null }))
      .body;
    expect(draft).toMatchObject({ status: 'draft', publishedAt: null, repName: null });

    expect((await user.delete(`/api/action-configs/${config.id}`)).body).toEqual({ success: true });
    expectProblem(await user.get(`/api/action-configs/${config.id}`), 404, 'NOT_FOUND');
    expect(await eventTypes(config.id)).toEqual([
      'action_config.created',
      'action_config.published',
      'action_config.updated',
      'action_config.deleted',
    ]);
  });

  it('leaves requirementsJson out when it has none (the interface types it an optional object, not null)', async () => {
    const { requirementsJson: _, ...without } = fixtures.actionConfig;
    const created = await user.post(`/api/decks/${deckId}/action-configs`, without);
    expect(created.status, created.text).toBe(201);
    expect(created.body).not.toHaveProperty('requirementsJson');
    expect((await user.get(`/api/action-configs/${created.body.id}`)).body).not.toHaveProperty(
      'requirementsJson',
    );
    const given = (await user.patch(`/api/action-configs/${created.body.id}`, { requirementsJson: { a: 1 } }))
      .body;
    expect(given.requirementsJson).toEqual({ a: 1 });
    // null clears it, and the answer leaves it out again.
    const cleared = (await user.patch(`/api/action-configs/${created.body.id}`, { requirementsJson: null }))
      .body;
    expect(cleared).not.toHaveProperty('requirementsJson');
    await user.delete(`/api/action-configs/${created.body.id}`);
  });

  it('can be created published, with publishedAt set', async () => {
    const config = (
      await user.post(`/api/decks/${deckId}/action-configs`, {
        ...fixtures.actionConfig,
        status: 'published',
      })
    ).body;
    expect(config.status).toBe('published');
    expect(config.publishedAt).toBe(config.createdAt);
  });

  it.each([
    ['no actionType', { templateMarkdown: '# x' }, 'actionType'],
    ['no templateMarkdown', { actionType: 'loi' }, 'templateMarkdown'],
    ['an unknown status', { ...fixtures.actionConfig, status: 'archived' }, 'status'],
    [
      'requirementsJson as an array',
      { ...fixtures.actionConfig, requirementsJson: ['a'] },
      'requirementsJson',
    ],
    [
      'requirementsJson as a string',
      { ...fixtures.actionConfig, requirementsJson: '{"a":1}' },
      'requirementsJson',
    ],
    [
      'a NUL inside requirementsJson',
      { ...fixtures.actionConfig, requirementsJson: { a: 'x\u0000' } },
      'requirementsJson.a',
    ],
  ])('rejects %s with 400, creating nothing', async (_label, body, field) => {
    const problem = expectProblem(
      await user.post(`/api/decks/${deckId}/action-configs`, body),
      400,
      'BAD_REQUEST',
    );
    expect(problem.issues?.map((i) => i.path.join('.'))).toContain(field);
    expect((await user.get(`/api/decks/${deckId}/action-configs`)).body.actionConfigs).toEqual([]);
  });

  it('answers markdown over 200 kB with 413, on create and on update', async () => {
    const big = 'x'.repeat(200 * 1024 + 1);
    const create = await user.post(`/api/decks/${deckId}/action-configs`, {
      actionType: 'loi',
      templateMarkdown: big,
    });
    expect(expectProblem(create, 413, 'PAYLOAD_TOO_LARGE').detail).toMatch(/templateMarkdown/);
    expect((await user.get(`/api/decks/${deckId}/action-configs`)).body.actionConfigs).toEqual([]);

    const config = (await user.post(`/api/decks/${deckId}/action-configs`, fixtures.actionConfig)).body;
    expectProblem(
      await user.patch(`/api/action-configs/${config.id}`, { disclosuresMarkdown: big }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect((await user.get(`/api/action-configs/${config.id}`)).body).toEqual(config);
  });
});

describe('intro', () => {
  it('is saved with PUT, read, replaced and deleted; 404 when there is none', async () => {
    expectProblem(await user.get(`/api/decks/${deckId}/intro`), 404, 'NOT_FOUND');
    const saved = await user.put(`/api/decks/${deckId}/intro`, fixtures.intro);
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({
      deckId,
      ...fixtures.intro,
      audioKey: null,
      audioUrl: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await user.get(`/api/decks/${deckId}/intro`)).body).toEqual(saved.body);

    const replaced = (await user.put(`/api/decks/${deckId}/intro`, { script: 'Shorter.' })).body;
    expect(replaced).toMatchObject({
      title: null,
      script: 'Shorter.',
      voiceId: null,
      createdAt: saved.body.createdAt,
    });

    expect((await user.delete(`/api/decks/${deckId}/intro`)).body).toEqual({ success: true });
    const again = expectProblem(await user.delete(`/api/decks/${deckId}/intro`), 404, 'NOT_FOUND');
    expect(again.detail).toMatch(/has no intro/);
    expect(await eventTypes(deckId)).toEqual([
      'deck.created',
      'deck.intro_saved',
      'deck.intro_saved',
      'deck.intro_deleted',
    ]);
  });

  it.each([
    ['no script', { title: 'x' }, 'script'],
    ['an empty script', { script: '   ' }, 'script'],
    ['a script of the wrong type', { script: ['a'] }, 'script'],
  ])('rejects %s with 400, saving nothing', async (_label, body, field) => {
    const problem = expectProblem(await user.put(`/api/decks/${deckId}/intro`, body), 400, 'BAD_REQUEST');
    expect(problem.issues?.map((i) => i.path.join('.'))).toContain(field);
    expectProblem(await user.get(`/api/decks/${deckId}/intro`), 404, 'NOT_FOUND');
  });
});
