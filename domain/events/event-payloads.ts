import { z } from 'zod';
import { actionConfigOutput } from '../action-configs/action-config-output.ts';
import { apiKeyOutput } from '../api-keys/api-key-output.ts';
import { userOutput } from '../auth/auth-output.ts';
import { brandingOutput } from '../branding/branding-output.ts';
import { importContractOutput } from '../contracts/contract-output.ts';
import { deckOutput } from '../decks/deck-output.ts';
import { exportEventOutput } from '../exports/export-output.ts';
import { faqOutput } from '../faqs/faq-output.ts';
import { jobOutput } from '../generation/job-output.ts';
import { imageOutput } from '../images/image-output.ts';
import { introOutput } from '../intro/intro-output.ts';
import { kbDocumentOutput } from '../kb/kb-document-output.ts';
import { subscriptionOutput } from '../notifications/subscription-output.ts';
import { slideOutput } from '../slides/slide-output.ts';
import { organizationUserOutput } from '../users/user-output.ts';

/**
 * The payload of each event type, declared once: `recordEvent` takes its type from here (a call
 * site writing another shape does not compile), and the event log's answer, the live stream and
 * the OpenAPI document (its `webhooks`) are built from the same schemas. A payload is the
 * resource as its routes answer it (api.md, "Events"): the resource's output schema, picked or
 * extended, never a copy; plus `deckId` where the change belongs to a deck, and `actor`.
 * Signed addresses (`url`, `audioUrl` of FAQs and intros) are left out: they expire, the
 * object key stays. No secret is ever in one (API keys and subscriptions carry no secret field).
 */

/** Who made the change: a caller, or the service itself (background work, operators' scripts). */
export const eventActor = z
  .discriminatedUnion('type', [
    z.object({ type: z.enum(['user', 'api_key']), id: z.uuid() }),
    z.object({ type: z.literal('system') }),
  ])
  .meta({
    id: 'EventActor',
    description:
      'Who made the change (api.md: every event records it): a user or an API key with its id, or `system` for background work and operators',
  });

const actor = { actor: eventActor };
/** Added by `recordEvent` to events of a deck's own aggregates (the deck itself, its jobs). */
const ofDeck = { deckId: z.uuid().meta({ description: 'The deck the change belongs to' }), ...actor };

const deckPayload = deckOutput.extend(ofDeck).meta({ id: 'DeckEventPayload' });
const brandingPayload = z
  .object({ branding: brandingOutput, ...ofDeck })
  .meta({ id: 'BrandingEventPayload' });
const introPayload = z
  .object({ intro: introOutput.omit({ audioUrl: true }), ...ofDeck })
  .meta({ id: 'DeckIntroEventPayload' });
const slidesReorderedPayload = z
  .object({
    slideIds: z.array(z.uuid()).meta({ description: 'Every slide of the deck, in the new order' }),
    ...ofDeck,
  })
  .meta({ id: 'SlidesReorderedEventPayload' });
const slidePayload = slideOutput.extend(actor).meta({ id: 'SlideEventPayload' });
const faqPayload = faqOutput.omit({ audioUrl: true }).extend(actor).meta({ id: 'FaqEventPayload' });
const faqAudioFailedPayload = faqPayload
  .extend({ reason: z.string().meta({ description: 'Why the answer could not be spoken' }) })
  .meta({ id: 'FaqAudioFailedEventPayload' });
const actionConfigPayload = actionConfigOutput.extend(actor).meta({ id: 'ActionConfigEventPayload' });
const jobPayload = jobOutput.extend(ofDeck).meta({ id: 'GenerationJobEventPayload' });
const exportPayload = exportEventOutput.extend(ofDeck).meta({
  id: 'ExportEventPayload',
  description: 'The export as its routes answer it, its files without their signed `url`',
});
const imagePayload = imageOutput.omit({ url: true }).extend(actor).meta({ id: 'ImageEventPayload' });
const kbDocumentPayload = kbDocumentOutput.extend(actor).meta({ id: 'KbDocumentEventPayload' });
const kbDocumentDeletedPayload = kbDocumentPayload
  .extend({
    reason: z.literal('upload_expired').optional().meta({
      description: 'Present when the service removed an upload that was never completed in time',
    }),
  })
  .meta({ id: 'KbDocumentDeletedEventPayload' });
// The names only: the texts of a filled-in contract are deal terms, which the log does not keep.
const contractPayload = importContractOutput
  .pick({ detectedVariables: true })
  .extend({
    id: z.uuid(),
    filename: z.string(),
    fileType: z.string().meta({ description: 'The media type read from the content' }),
    analyzer: z.string().meta({ description: 'What found the variables' }),
    ...actor,
  })
  .meta({ id: 'ContractImportedEventPayload' });
const subscriptionPayload = subscriptionOutput
  .extend(actor)
  .meta({ id: 'NotificationSubscriptionEventPayload' });
const loginPayload = z.object({ user: userOutput, ...actor }).meta({ id: 'UserLoggedInEventPayload' });
const userPayload = organizationUserOutput.extend(actor).meta({ id: 'UserEventPayload' });
const apiKeyPayload = apiKeyOutput.extend(actor).meta({ id: 'ApiKeyEventPayload' });

/** Every event type (the catalogue of `events.ts`) and its payload. */
export const EVENT_PAYLOADS = {
  'deck.created': deckPayload,
  'deck.updated': deckPayload,
  'deck.deleted': deckPayload,
  'deck.branding_updated': brandingPayload,
  'deck.intro_saved': introPayload,
  'deck.intro_deleted': introPayload,
  'deck.slides_reordered': slidesReorderedPayload,
  'slide.created': slidePayload,
  'slide.updated': slidePayload,
  'slide.deleted': slidePayload,
  'slide.product_data_updated': slidePayload,
  'faq.created': faqPayload,
  'faq.updated': faqPayload,
  'faq.deleted': faqPayload,
  'faq.audio_failed': faqAudioFailedPayload,
  'action_config.created': actionConfigPayload,
  'action_config.updated': actionConfigPayload,
  'action_config.published': actionConfigPayload,
  'action_config.deleted': actionConfigPayload,
  'generation_job.started': jobPayload,
  'generation_job.completed': jobPayload,
  'generation_job.failed': jobPayload,
  'export.completed': exportPayload,
  'export.failed': exportPayload,
  'image.uploaded': imagePayload,
  'image.deleted': imagePayload,
  'kb_document.upload_initiated': kbDocumentPayload,
  'kb_document.uploaded': kbDocumentPayload,
  'kb_document.deleted': kbDocumentDeletedPayload,
  'contract.imported': contractPayload,
  'notification_subscription.created': subscriptionPayload,
  'notification_subscription.updated': subscriptionPayload,
  'notification_subscription.deleted': subscriptionPayload,
  'notification_subscription.disabled': subscriptionPayload,
  'notification_subscription.secret_rotated': subscriptionPayload,
  'user.logged_in': loginPayload,
  'user.created': userPayload,
  'user.updated': userPayload,
  'user.deleted': userPayload,
  'user.password_changed': userPayload,
  'api_key.created': apiKeyPayload,
  'api_key.revoked': apiKeyPayload,
} as const;
