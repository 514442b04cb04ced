// Every entity, listed once: the ORM is configured from this list (no path scanning).
import { ActionConfig } from './ActionConfig.ts';
import { ApiKey } from './ApiKey.ts';
import { Deck } from './Deck.ts';
import { DeckBranding } from './DeckBranding.ts';
import { DeckIntro } from './DeckIntro.ts';
import { DeliveryAttempt } from './DeliveryAttempt.ts';
import { Event } from './Event.ts';
import { EventCount } from './EventCount.ts';
import { EventCountByHour } from './EventCountByHour.ts';
import { ExportJob } from './ExportJob.ts';
import { Faq } from './Faq.ts';
import { GenerationJob } from './GenerationJob.ts';
import { IdempotencyKey } from './IdempotencyKey.ts';
import { Image } from './Image.ts';
import { KbDocument } from './KbDocument.ts';
import { LoginThrottle } from './LoginThrottle.ts';
import { NotificationDelivery } from './NotificationDelivery.ts';
import { NotificationSubscription } from './NotificationSubscription.ts';
import { OpenStream } from './OpenStream.ts';
import { Organization } from './Organization.ts';
import { RateLimitCounter } from './RateLimitCounter.ts';
import { Session } from './Session.ts';
import { Slide } from './Slide.ts';
import { User } from './User.ts';

export {
  ActionConfig,
  ApiKey,
  Deck,
  DeckBranding,
  DeckIntro,
  Event,
  EventCount,
  EventCountByHour,
  ExportJob,
  Faq,
  GenerationJob,
  IdempotencyKey,
  Image,
  KbDocument,
  LoginThrottle,
  OpenStream,
  Organization,
  RateLimitCounter,
  Session,
  Slide,
  User,
};
export const entities = [
  Organization,
  User,
  Session,
  LoginThrottle,
  Deck,
  DeckBranding,
  Slide,
  ActionConfig,
  DeckIntro,
  Event,
  EventCount,
  EventCountByHour,
  NotificationSubscription,
  NotificationDelivery,
  DeliveryAttempt,
  Image,
  KbDocument,
  Faq,
  GenerationJob,
  ApiKey,
  IdempotencyKey,
  RateLimitCounter,
  OpenStream,
  ExportJob,
];
