// Every entity, listed once: the ORM is configured from this list (no path scanning).
import { Deck } from './Deck.ts';
import { Event } from './Event.ts';
import { LoginThrottle } from './LoginThrottle.ts';
import { Organization } from './Organization.ts';
import { Session } from './Session.ts';
import { User } from './User.ts';

export { Deck, Event, LoginThrottle, Organization, Session, User };
export const entities = [Organization, User, Session, LoginThrottle, Deck, Event];
