import { randomBytes } from 'node:crypto';
import { png } from '../files.ts';
import * as fixtures from '../fixtures.ts';
import type { HttpClient } from '../http-client.ts';
import type { TestApp } from '../test-app.ts';
import type { Ref, RefKind } from './values.ts';

/** One organization's signed-in user and the real resources the walker aims at. */
export interface Organization {
  client: HttpClient;
  /** The Cookie header of the user's session, sent as is (fuzzed answers never change it). */
  cookie: string;
  organizationId: string;
  userId: string;
  email: string;
  password: string;
  ids: Record<Exclude<RefKind, 'deckSlideIds' | 'email' | 'password' | 'organizationId' | 'userId'>, string>;
}

/** Every value of the other organization that must never appear in an answer to the caller. */
export interface ForeignSecrets {
  ids: string[];
  /** A word written into every name and text of the other organization. */
  marker: string;
}

function expectStatus(response: { status: number; text: string }, status: number, what: string) {
  if (response.status !== status) throw new Error(`setting up ${what}: ${response.status} ${response.text}`);
}

async function createDeckResources(client: HttpClient, marker: string) {
  const deck = await client.post('/api/decks', { name: `Deck ${marker}` });
  expectStatus(deck, 201, 'deck');
  const deckId = deck.body.id as string;
  expectStatus(
    await client.put(`/api/decks/${deckId}/branding`, { ...fixtures.branding, name: `Brand ${marker}` }),
    200,
    'branding',
  );
  expectStatus(
    await client.put(`/api/decks/${deckId}/intro`, { ...fixtures.intro, title: `Intro ${marker}` }),
    200,
    'intro',
  );
  const slide = await client.post(`/api/decks/${deckId}/slides`, {
    title: `Slide ${marker}`,
    narrationScript: `Say ${marker}.`,
    bullets: [marker],
  });
  expectStatus(slide, 201, 'slide');
  const pricing = await client.post(`/api/decks/${deckId}/slides`, {
    title: `Pricing ${marker}`,
    slideType: 'product_pricing_v1',
    productData: { ...fixtures.productData, subtitle: marker },
  });
  expectStatus(pricing, 201, 'pricing slide');
  const faq = await client.post(`/api/decks/${deckId}/faqs`, {
    userQuestion: `Why ${marker}?`,
    cannedAnswer: 'Because.',
    relatedSlideId: slide.body.id,
  });
  expectStatus(faq, 201, 'faq');
  const config = await client.post(`/api/decks/${deckId}/action-configs`, {
    ...fixtures.actionConfig,
    repName: marker,
  });
  expectStatus(config, 201, 'action config');
  expectStatus(await client.post(`/api/decks/${deckId}/generate`), 202, 'generation job');
  return {
    exportId: await createExport(client, deckId),
    deckId,
    slideId: slide.body.id as string,
    pricingSlideId: pricing.body.id as string,
    faqId: faq.body.id as string,
    actionConfigId: config.body.id as string,
  };
}

async function createExport(client: HttpClient, deckId: string) {
  const created = await client.post(`/api/decks/${deckId}/exports`, { format: 'pptx' });
  expectStatus(created, 202, 'export');
  return created.body.id as string;
}

// No marker in the name: the image's key (which holds its name) is sent by the walk as text.
async function uploadImage(client: HttpClient) {
  const image = await client.upload('/api/images', {
    name: 'logo.png',
    bytes: png(3, 2),
    type: 'image/png',
  });
  expectStatus(image, 201, 'image');
  return { imageId: image.body.id as string, objectKey: image.body.objectKey as string };
}

async function createDocument(client: HttpClient, marker: string, complete: boolean) {
  const content = `# ${marker}\n`;
  const init = await client.post('/api/company/kb/documents/upload-init', {
    filename: `${marker}.md`,
    contentType: 'text/markdown',
    sizeBytes: Buffer.byteLength(content),
    displayName: `Doc ${marker}`,
  });
  expectStatus(init, 201, 'kb upload-init');
  if (complete) {
    const put = await fetch(init.body.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'text/markdown' },
      body: content,
    });
    expectStatus({ status: put.status, text: await put.text() }, 200, 'kb upload');
    expectStatus(
      await client.post(`/api/company/kb/documents/${init.body.documentId}/complete`),
      200,
      'kb complete',
    );
  }
  return init.body.documentId as string;
}

async function createSubscription(client: HttpClient, marker: string) {
  const subscription = await client.post('/api/notifications/subscriptions', {
    name: `Log ${marker}`,
    eventType: '*',
    channel: 'console',
  });
  expectStatus(subscription, 201, 'subscription');
  return subscription.body.id as string;
}

/** An API key (revoking it is the one way the walk can use it up). */
async function createApiKey(client: HttpClient, marker: string) {
  const key = await client.post('/api/api-keys', { name: `Key ${marker}`, access: 'read' });
  expectStatus(key, 201, 'api key');
  return key.body.apiKey.id as string;
}

/** Signs a user of a new organization in and creates one of everything for them. */
export async function createOrganization(t: TestApp, label: string, marker: string): Promise<Organization> {
  const client = await t.signedInClient(`${label} ${marker}`);
  const voices = await client.get('/api/voices/list');
  expectStatus(voices, 200, 'voices');
  const deck = await createDeckResources(client, marker);
  const image = await uploadImage(client);
  return {
    client,
    cookie: client.cookieHeader,
    organizationId: client.organizationId,
    userId: client.userId,
    email: client.email,
    password: client.password,
    ids: {
      ...deck,
      ...image,
      voiceId: voices.body.voices[0].voice_id,
      documentId: await createDocument(client, marker, true),
      pendingDocumentId: await createDocument(client, marker, false),
      subscriptionId: await createSubscription(client, marker),
      apiKeyId: await createApiKey(client, marker),
    },
  };
}

export function newMarker(): string {
  return `zq${randomBytes(5).toString('hex')}`;
}

/** The value a Ref stands for, now. */
export async function resolveRef(t: TestApp, organization: Organization, ref: Ref): Promise<unknown> {
  switch (ref.kind) {
    case 'organizationId':
      return organization.organizationId;
    case 'userId':
      return organization.userId;
    case 'email':
      return organization.email;
    case 'password':
      return organization.password;
    case 'deckSlideIds': {
      const rows = await t.app.database.orm.em
        .getConnection()
        .execute<{ id: string }[]>('select id from slide where deck_id = ? order by order_index', [
          organization.ids.deckId,
        ]);
      const ids = rows.map((row) => row.id);
      // A deterministic shuffle by the generated salt.
      let seed = ref.salt + 1;
      for (let i = ids.length - 1; i > 0; i -= 1) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        const j = seed % (i + 1);
        [ids[i], ids[j]] = [ids[j]!, ids[i]!];
      }
      return ids;
    }
    default:
      return organization.ids[ref.kind];
  }
}

/** What must exist for a Ref of each kind to name something real. */
const NEEDS: Partial<Record<RefKind, string[]>> = {
  deckId: ['deck', 'intro'],
  deckSlideIds: ['deck'],
  slideId: ['deck', 'slide'],
  pricingSlideId: ['deck', 'pricing'],
  faqId: ['deck', 'faq'],
  actionConfigId: ['deck', 'config'],
  imageId: ['image'],
  objectKey: ['image'],
  documentId: ['document'],
  pendingDocumentId: ['pending'],
  subscriptionId: ['subscription'],
  apiKeyId: ['key'],
  exportId: ['deck', 'export'],
};

/**
 * Puts back what a successful request of the walk deleted (or changed beyond use) among the
 * resources the next request names, so that valid ids keep naming something: one query to
 * see what is missing, then the API to re-create it. Returns whether anything is still missing.
 */
export async function restoreOrganization(
  t: TestApp,
  organization: Organization,
  marker: string,
  kinds: Iterable<RefKind>,
): Promise<{ restored: boolean; stillMissing: boolean }> {
  const { ids, client } = organization;
  const [state] = await t.app.database.orm.em.getConnection().execute<Record<string, boolean>[]>(
    `select exists(select 1 from deck where id = ?) as deck,
            exists(select 1 from slide where id = ?) as slide,
            exists(select 1 from slide where id = ? and slide_type = 'product_pricing_v1' and product_data is not null) as pricing,
            exists(select 1 from faq where id = ?) as faq,
            exists(select 1 from action_config where id = ?) as config,
            exists(select 1 from image where id = ?) as image,
            exists(select 1 from kb_document where id = ? and status = 'uploaded') as document,
            exists(select 1 from kb_document where id = ? and status = 'pending') as pending,
            exists(select 1 from notification_subscription where id = ?) as subscription,
            exists(select 1 from deck_intro where deck_id = ?) as intro,
            exists(select 1 from api_key where id = ? and revoked_at is null) as key,
            exists(select 1 from export_job where id = ? and deck_id is not null) as export`,
    [
      ids.deckId,
      ids.slideId,
      ids.pricingSlideId,
      ids.faqId,
      ids.actionConfigId,
      ids.imageId,
      ids.documentId,
      ids.pendingDocumentId,
      ids.subscriptionId,
      ids.deckId,
      ids.apiKeyId,
      ids.exportId,
    ],
  );
  if (!state) throw new Error('no state row');
  const needed = new Set([...kinds].flatMap((kind) => NEEDS[kind] ?? []));
  const missing = (what: string) => !state[what] && needed.has(what);
  let restored = false;
  if (missing('deck')) {
    Object.assign(ids, await createDeckResources(client, marker));
    Object.assign(state, { slide: true, pricing: true, faq: true, config: true, intro: true, export: true });
    restored = true;
  }
  if (missing('slide')) {
    const slide = await client.post(`/api/decks/${ids.deckId}/slides`, { title: `Slide ${marker}` });
    expectStatus(slide, 201, 'slide again');
    ids.slideId = slide.body.id;
    restored = true;
  }
  if (missing('pricing')) {
    const pricing = await client.post(`/api/decks/${ids.deckId}/slides`, {
      slideType: 'product_pricing_v1',
      productData: fixtures.productData,
    });
    expectStatus(pricing, 201, 'pricing slide again');
    ids.pricingSlideId = pricing.body.id;
    restored = true;
  }
  if (missing('faq')) {
    const faq = await client.post(`/api/decks/${ids.deckId}/faqs`, {
      userQuestion: 'Why?',
      cannedAnswer: 'Yes.',
    });
    expectStatus(faq, 201, 'faq again');
    ids.faqId = faq.body.id;
    restored = true;
  }
  if (missing('config')) {
    const config = await client.post(`/api/decks/${ids.deckId}/action-configs`, fixtures.actionConfig);
    expectStatus(config, 201, 'action config again');
    ids.actionConfigId = config.body.id;
    restored = true;
  }
  if (missing('intro')) {
    expectStatus(await client.put(`/api/decks/${ids.deckId}/intro`, fixtures.intro), 200, 'intro again');
    restored = true;
  }
  if (missing('export')) {
    ids.exportId = await createExport(client, ids.deckId);
    restored = true;
  }
  if (missing('image')) {
    Object.assign(ids, await uploadImage(client));
    restored = true;
  }
  if (missing('document')) {
    ids.documentId = await createDocument(client, marker, true);
    restored = true;
  }
  if (missing('pending')) {
    ids.pendingDocumentId = await createDocument(client, marker, false);
    restored = true;
  }
  if (missing('subscription')) {
    ids.subscriptionId = await createSubscription(client, marker);
    restored = true;
  }
  if (missing('key')) {
    ids.apiKeyId = await createApiKey(client, marker);
    restored = true;
  }
  const stillMissing = Object.entries(state).some(([what, present]) => !present && !needed.has(what));
  return { restored, stillMissing };
}

/** The ids and words of an organization, for the leak check. */
export async function secretsOf(
  t: TestApp,
  organization: Organization,
  marker: string,
): Promise<ForeignSecrets> {
  const rows = await t.app.database.orm.em.getConnection().execute<{ id: string }[]>(
    `select id::text from slide where deck_id = ? union select id::text from generation_job where deck_id = ?
       union select id::text from export_job where deck_id = ?`,
    [organization.ids.deckId, organization.ids.deckId, organization.ids.deckId],
  );
  const ids = new Set<string>([
    organization.organizationId,
    organization.userId,
    ...Object.values(organization.ids).filter((value) => /^[0-9a-f-]{36}$/.test(value)),
    ...rows.map((row) => row.id),
  ]);
  ids.delete(organization.ids.voiceId);
  return { ids: [...ids], marker };
}
