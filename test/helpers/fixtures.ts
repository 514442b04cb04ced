/** Valid request bodies, so that tests of other failures get past validation. */

export function tier(name: string, price: number) {
  return { name, price, currency: 'USD', billingPeriod: 'month', features: [`${name} feature`] };
}

export const productData = {
  good: tier('Starter', 49),
  better: { ...tier('Growth', 99), highlighted: true, ctaText: 'Most popular' },
  best: tier('Scale', 249.5),
  subtitle: 'Pick the plan that fits',
  disclaimer: 'Prices exclude VAT',
  defaultSelectedTier: 'better',
};

export const branding = {
  name: 'Acme',
  palette: {
    primary: '#1a73e8',
    primaryLight: '#e8f0fe',
    accent: '#f9ab00',
    neutral: '#5f6368',
    text: '#202124',
  },
  cta: {
    headline: 'Ready?',
    body: 'Book a call with us.',
    buttonText: 'Book',
    buttonUrl: 'https://acme.test/book',
  },
  chatName: 'Ada',
  chatGreeting: 'Hi! Ask me anything.',
  fonts: { heading: 'Inter', body: 'Source Serif' },
  contact: { phone: '+1 555 0100', email: 'sales@acme.test' },
};

export const actionConfig = {
  actionType: 'loi',
  templateMarkdown: '# Letter of intent\n\n{{company_name}} intends to purchase …',
  disclosuresMarkdown: 'Non-binding.',
  requirementsJson: { signer: { required: true }, fields: ['company_name'] },
  repName: 'Sam Seller',
};

export const intro = {
  title: 'Welcome',
  script: 'Hello and welcome to our presentation.',
  voiceId: 'en-gb+steph',
};

/** A valid body for each documented route that takes one (keyed by "METHOD /path"). */
export const validBodies: Record<string, unknown> = {
  'PATCH /decks/{deckId}': { name: 'Renamed' },
  'PUT /decks/{deckId}/branding': branding,
  'POST /decks/{deckId}/slides': { title: 'A slide' },
  'PATCH /slides/{slideId}': { title: 'Edited' },
  'PUT /decks/{deckId}/slides/reorder': { slideIds: [] },
  'PUT /slides/{slideId}/product-data': { productData },
  'POST /decks/{deckId}/action-configs': actionConfig,
  'PATCH /action-configs/{actionConfigId}': { status: 'published' },
  'PUT /decks/{deckId}/intro': intro,
  'PUT /notifications/subscriptions/{subscriptionId}': { name: 'Renamed subscription' },
  'POST /company/kb/documents/{documentId}/complete': {},
  'POST /notifications/deliveries/{deliveryId}/retry': {},
  'POST /notifications/subscriptions/{subscriptionId}/test': {},
  'POST /notifications/subscriptions/{subscriptionId}/replay': {
    since: new Date(Date.now() - 3_600_000).toISOString(),
  },
  'POST /notifications/subscriptions/{subscriptionId}/rotate-secret': { graceHours: 1 },
  'POST /decks/{deckId}/faqs': { userQuestion: 'Is there a trial?', cannedAnswer: 'Yes, thirty days.' },
  'PATCH /faqs/{faqId}': { userQuestion: 'Is there a free trial?' },
  'POST /decks/{deckId}/generate': {},
  'POST /decks/{deckId}/exports': { format: 'pdf' },
  'POST /users': {
    email: 'new-user@example.test',
    name: 'New User',
    role: 'member',
    password: 'a-long-password',
  },
  'PATCH /users/{userId}': { name: 'Renamed user' },
  'POST /auth/password': { currentPassword: 'not-the-password', newPassword: 'a-new-long-password' },
  'POST /api-keys': { name: 'CI', access: 'read' },
};
