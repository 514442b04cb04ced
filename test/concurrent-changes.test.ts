import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTransaction, waitForLockWaiters } from './helpers/blocking-transaction.ts';
import { png } from './helpers/files.ts';
import { actionConfig, branding, intro, productData } from './helpers/fixtures.ts';
import type { HttpClient, HttpResponse } from './helpers/http-client.ts';
import { type ElevenLabsStandIn, startSpeakingApp } from './helpers/speaking-app.ts';
import type { TestApp } from './helpers/test-app.ts';

/**
 * Requests that meet a concurrent change end in a 2xx or 4xx, never a 500, and never write
 * an event for something already gone. Concurrency is real: parallel HTTP requests, or a
 * request held at a row by a transaction of the test that commits the change "meanwhile".
 */
const KEY = 'test-elevenlabs-key';
let eleven: ElevenLabsStandIn;
let t: TestApp;
let close: (() => Promise<void>) | undefined;
let client: HttpClient & { organizationId: string };

beforeAll(async () => {
  ({ eleven, t, close } = await startSpeakingApp(KEY, { GENERATION_ENABLED: 'false' }));
  client = await t.signedInClient();
});

afterAll(() => close?.());

const newDeck = async () => (await client.post('/api/decks', { name: 'Race' })).body.id as string;
const newSlide = async (deckId: string) =>
  (await client.post(`/api/decks/${deckId}/slides`, { title: 'S', narrationScript: 'Hello.' })).body
    .id as string;
const statuses = (answers: HttpResponse[]) => answers.map((a) => a.status).sort();

async function waitFor(condition: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Deletes a row in a transaction of the test, sends `request` (which reaches that row and
 * waits for the lock), commits the delete, and returns the request's answer.
 */
async function deletedWhileInFlight(
  table: string,
  id: string,
  request: () => Promise<HttpResponse>,
): Promise<HttpResponse> {
  const tx = await openTransaction(t.databaseUrl);
  try {
    await tx.query(`delete from ${table} where id = $1`, [id]);
    const answer = request();
    const early = answer.then((a) => {
      throw new Error(`answered before the delete was committed: ${a.status} ${a.text}`);
    });
    await Promise.race([waitForLockWaiters(t.databaseUrl, 1), early]);
    early.catch(() => {});
    await tx.commit();
    return await answer;
  } finally {
    await tx.rollback();
  }
}

describe('first saves of a one-per-deck resource', () => {
  it('four concurrent first PUTs of branding all succeed, each with its event', async () => {
    const deckId = await newDeck();
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        client.put(`/api/decks/${deckId}/branding`, { ...branding, name: `Acme ${i}` }),
      ),
    );
    expect(statuses(answers), answers.map((a) => a.text).join('\n')).toEqual([200, 200, 200, 200]);
    const saved = await client.get(`/api/decks/${deckId}/branding`);
    expect(answers.map((a) => a.body.branding.name)).toContain(saved.body.branding.name);
    const events = await t.eventTypes(deckId);
    expect(events.filter((type) => type === 'deck.branding_updated')).toHaveLength(4);
  });

  it('four concurrent first PUTs of the intro all succeed, each with its event', async () => {
    const deckId = await newDeck();
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        client.put(`/api/decks/${deckId}/intro`, { ...intro, voiceId: 'v-rachel', script: `Welcome ${i}.` }),
      ),
    );
    expect(statuses(answers), answers.map((a) => a.text).join('\n')).toEqual([200, 200, 200, 200]);
    const events = await t.eventTypes(deckId);
    expect(events.filter((type) => type === 'deck.intro_saved')).toHaveLength(4);
  });
});

describe('a FAQ whose answer is being spoken', () => {
  async function whileSpeaking(request: () => Promise<HttpResponse>, meanwhile: () => Promise<void>) {
    const heldBefore = eleven.heldCount();
    eleven.state.tts = 'hold';
    try {
      const answer = request();
      await waitFor(() => eleven.heldCount() > heldBefore);
      await meanwhile();
      eleven.releaseHeld();
      return await answer;
    } finally {
      eleven.state.tts = 'ok';
      eleven.releaseHeld();
    }
  }

  it('create: the related slide deleted meanwhile is a 400 on relatedSlideId, and nothing is saved', async () => {
    const deckId = await newDeck();
    const slideId = await newSlide(deckId);
    const answer = await whileSpeaking(
      () =>
        client.post(`/api/decks/${deckId}/faqs`, {
          userQuestion: 'Q?',
          cannedAnswer: 'A.',
          relatedSlideId: slideId,
        }),
      async () => expect((await client.delete(`/api/slides/${slideId}`)).status).toBe(200),
    );
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.issues).toEqual([expect.objectContaining({ path: ['relatedSlideId'] })]);
    expect((await client.get(`/api/decks/${deckId}/faqs`)).body.faqs).toEqual([]);
  });

  it('create: the deck deleted meanwhile is a 404', async () => {
    const deckId = await newDeck();
    const answer = await whileSpeaking(
      () => client.post(`/api/decks/${deckId}/faqs`, { userQuestion: 'Q?', cannedAnswer: 'A.' }),
      async () => expect((await client.delete(`/api/decks/${deckId}`)).status).toBe(200),
    );
    expect(answer.status, answer.text).toBe(404);
  });

  it('update: the new related slide deleted meanwhile is a 400; the FAQ deleted meanwhile a 404', async () => {
    const deckId = await newDeck();
    const slideId = await newSlide(deckId);
    const faq = await client.post(`/api/decks/${deckId}/faqs`, { userQuestion: 'Q?', cannedAnswer: 'A.' });
    expect(faq.status).toBe(201);

    const toDeletedSlide = await whileSpeaking(
      () => client.patch(`/api/faqs/${faq.body.id}`, { cannedAnswer: 'B.', relatedSlideId: slideId }),
      async () => expect((await client.delete(`/api/slides/${slideId}`)).status).toBe(200),
    );
    expect(toDeletedSlide.status, toDeletedSlide.text).toBe(400);
    expect(toDeletedSlide.body.issues).toEqual([expect.objectContaining({ path: ['relatedSlideId'] })]);
    expect((await client.get(`/api/decks/${deckId}/faqs`)).body.faqs[0].cannedAnswer).toBe('A.');

    const ofDeletedFaq = await whileSpeaking(
      () => client.patch(`/api/faqs/${faq.body.id}`, { cannedAnswer: 'C.' }),
      async () => expect((await client.delete(`/api/faqs/${faq.body.id}`)).status).toBe(200),
    );
    expect(ofDeletedFaq.status, ofDeletedFaq.text).toBe(404);
    expect(await t.eventTypes(faq.body.id)).toEqual(['faq.created', 'faq.deleted']);
  });
});

describe('deletes that meet another delete', () => {
  it('two concurrent deletes of one slide: one 200, one 404, one event', async () => {
    const deckId = await newDeck();
    const slideId = await newSlide(deckId);
    // Both requests find the slide, then queue at the deck's lock, held here until both wait.
    const tx = await openTransaction(t.databaseUrl);
    let answers: HttpResponse[];
    try {
      await tx.query('select 1 from deck where id = $1 for update', [deckId]);
      const pending = Promise.all([
        client.delete(`/api/slides/${slideId}`),
        client.delete(`/api/slides/${slideId}`),
      ]);
      await waitForLockWaiters(t.databaseUrl, 2);
      await tx.commit();
      answers = await pending;
    } finally {
      await tx.rollback();
    }
    expect(statuses(answers), answers.map((a) => a.text).join('\n')).toEqual([200, 404]);
    expect((await t.eventTypes(slideId)).filter((type) => type === 'slide.deleted')).toHaveLength(1);
  });

  it('each resource deleted while its DELETE is in flight answers 404 and writes no event', async () => {
    const deckId = await newDeck();
    const image = await client.upload('/api/images', { name: 'a.png', bytes: png(4, 4), type: 'image/png' });
    const config = await client.post(`/api/decks/${deckId}/action-configs`, actionConfig);
    const faq = await client.post(`/api/decks/${deckId}/faqs`, { userQuestion: 'Q?', cannedAnswer: 'A.' });
    const document = await client.post('/api/company/kb/documents/upload-init', {
      filename: 'a.txt',
      contentType: 'text/plain',
      sizeBytes: 3,
    });
    const subscription = await client.post('/api/notifications/subscriptions', {
      name: 'log',
      eventType: '*',
      channel: 'console',
    });
    const otherDeck = await newDeck();
    const cases: [string, string, string][] = [
      ['image', image.body.id, `/api/images/${image.body.id}`],
      ['action_config', config.body.id, `/api/action-configs/${config.body.id}`],
      ['faq', faq.body.id, `/api/faqs/${faq.body.id}`],
      ['kb_document', document.body.documentId, `/api/company/kb/documents/${document.body.documentId}`],
      [
        'notification_subscription',
        subscription.body.id,
        `/api/notifications/subscriptions/${subscription.body.id}`,
      ],
      ['deck', otherDeck, `/api/decks/${otherDeck}`],
    ];
    for (const [table, id, path] of cases) {
      const answer = await deletedWhileInFlight(table, id, () => client.delete(path));
      expect(answer.status, `${table}: ${answer.text}`).toBe(404);
      expect(
        (await t.eventTypes(id)).filter((type) => type.endsWith('.deleted')),
        table,
      ).toEqual([]);
    }
  });
});

describe('changes that meet a delete', () => {
  it('each PATCH/PUT of a resource deleted meanwhile answers 404 and writes no event', async () => {
    const deckId = await newDeck();
    const slideId = await newSlide(deckId);
    const pricing = await client.post(`/api/decks/${deckId}/slides`, { slideType: 'product_pricing_v1' });
    const config = await client.post(`/api/decks/${deckId}/action-configs`, actionConfig);
    const subscription = await client.post('/api/notifications/subscriptions', {
      name: 'log',
      eventType: '*',
      channel: 'console',
    });
    const document = await client.post('/api/company/kb/documents/upload-init', {
      filename: 'a.txt',
      contentType: 'text/plain',
      sizeBytes: 3,
    });
    const put = await fetch(document.body.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'abc',
    });
    expect(put.status).toBeLessThan(300);
    const otherDeck = await newDeck();
    const cases: [string, string, () => Promise<HttpResponse>][] = [
      ['slide', slideId, () => client.patch(`/api/slides/${slideId}`, { title: 'Renamed' })],
      [
        'slide',
        pricing.body.id,
        () =>
          client.put(`/api/slides/${pricing.body.id}/product-data`, {
            productData,
          }),
      ],
      [
        'action_config',
        config.body.id,
        () => client.patch(`/api/action-configs/${config.body.id}`, { repName: 'Z' }),
      ],
      [
        'notification_subscription',
        subscription.body.id,
        () => client.put(`/api/notifications/subscriptions/${subscription.body.id}`, { name: 'renamed' }),
      ],
      [
        'kb_document',
        document.body.documentId,
        () => client.post(`/api/company/kb/documents/${document.body.documentId}/complete`),
      ],
      ['deck', otherDeck, () => client.patch(`/api/decks/${otherDeck}`, { name: 'Renamed' })],
    ];
    for (const [table, id, request] of cases) {
      const before = await t.eventTypes(id);
      const answer = await deletedWhileInFlight(table, id, request);
      expect(answer.status, `${table}: ${answer.text}`).toBe(404);
      expect(await t.eventTypes(id), table).toEqual(before);
    }
  });

  it('creating in a deck deleted meanwhile answers 404 (action config, generation) or 409, never 500', async () => {
    const cases: [string, (deckId: string) => Promise<HttpResponse>, number][] = [
      ['action config', (deckId) => client.post(`/api/decks/${deckId}/action-configs`, actionConfig), 404],
      ['generation', (deckId) => client.post(`/api/decks/${deckId}/generate`), 404],
      [
        // The subscription's deck check is not locked: the one mapping of concurrent-change errors answers.
        'subscription',
        (deckId) =>
          client.post('/api/notifications/subscriptions', {
            name: 'd',
            eventType: '*',
            channel: 'console',
            deckId,
          }),
        409,
      ],
    ];
    for (const [label, request, status] of cases) {
      const deckId = await newDeck();
      await newSlide(deckId);
      const answer = await deletedWhileInFlight('deck', deckId, () => request(deckId));
      expect(answer.status, `${label}: ${answer.text}`).toBe(status);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });
});
