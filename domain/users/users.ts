import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../entities/ids.ts';
import { Organization } from '../../entities/Organization.ts';
import { User, type UserRole } from '../../entities/User.ts';
import { revokeSessionsOfUser } from '../auth/callers.ts';
import { hashNewPassword } from '../auth/password-work.ts';
import { applyChanges } from '../changes.ts';
import type { DomainContext } from '../context.ts';
import { conflict, missing } from '../errors.ts';
import { type EventActor, recordEvent, SYSTEM_ACTOR } from '../events/events.ts';
import { createOne } from '../mutation.ts';
import { lockRow } from '../row-lock.ts';
import { findUser } from './find-user.ts';
import { type OrganizationUserOutput, toOrganizationUserOutput } from './user-output.ts';

export interface CreateUserInput {
  organization: string;
  email: string;
  password: string;
  name?: string | undefined;
  role?: UserRole | undefined;
}

/**
 * The e-mail is unique across organizations (login is by e-mail alone): a second one is a 409,
 * told by the unique constraint (no find-then-insert). `detail` is what the caller may learn.
 */
function duplicateEmail(error: unknown, detail: string): unknown {
  return error instanceof UniqueConstraintViolationException ? conflict(detail) : error;
}

/**
 * What an owner learns of a taken e-mail (docs/decisions/004-user-email-uniqueness.md): the same
 * words whether it is taken in their organization or another, naming neither the address nor
 * whose it is.
 */
const EMAIL_CANNOT_BE_USED = 'This e-mail address cannot be used for a new user; choose another';

/**
 * Creates a user (operators only: admin CLI, demo seed). Finds the organization by name or
 * creates it; the first user of a new organization is its owner.
 */
export async function createUser(
  ctx: { em: EntityManager },
  input: CreateUserInput,
): Promise<{ organizationId: string; userId: string }> {
  const passwordHash = await hashNewPassword(input.password);
  try {
    return await ctx.em.transactional(async (em) => {
      let organization = await em.findOne(Organization, { name: input.organization });
      const isNewOrganization = !organization;
      organization ??= em.create(Organization, { id: newId(), name: input.organization });
      const user = em.create(User, {
        id: newId(),
        organization,
        email: input.email,
        name: input.name ?? input.email.split('@')[0]!,
        role: input.role ?? (isNewOrganization ? 'owner' : 'member'),
        passwordHash,
      });
      await em.flush();
      return { organizationId: organization.id, userId: user.id };
    });
  } catch (error) {
    // Operators have the database anyway: they are told plainly.
    throw duplicateEmail(error, `A user with e-mail ${input.email} already exists`);
  }
}

/** GET /users: the organization's users, oldest first. */
export function listUsers({ em, auth }: DomainContext): Promise<{ users: OrganizationUserOutput[] }> {
  return usersOf(em, auth.organizationId);
}

/** GET /users/{userId}: one user of the organization. */
export async function getUser({ em, auth }: DomainContext, userId: string): Promise<OrganizationUserOutput> {
  return toOrganizationUserOutput(await findUser(em, auth, userId));
}

async function usersOf(
  em: EntityManager,
  organizationId: string,
): Promise<{ users: OrganizationUserOutput[] }> {
  const users = await em.find(
    User,
    { organization: organizationId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  return { users: users.map(toOrganizationUserOutput) };
}

/**
 * POST /users: an owner adds a user to their organization. An e-mail taken anywhere is the same
 * 409 (EMAIL_CANNOT_BE_USED); the route is heavy, which bounds how fast an organization can probe.
 */
export async function addUser(
  { em, auth }: DomainContext,
  input: { email: string; name: string; role: UserRole; password: string },
): Promise<OrganizationUserOutput> {
  // Hashing runs on libuv's pool, not the event loop.
  const passwordHash = await hashNewPassword(input.password);
  try {
    return await createOne(em, auth, {
      create: (em) =>
        em.create(User, {
          id: newId(),
          organization: auth.organizationId,
          email: input.email,
          name: input.name,
          role: input.role,
          passwordHash,
        }),
      answer: toOrganizationUserOutput,
      event: (user, output) => ({ type: 'user.created', aggregateId: user.id, payload: output }),
    });
  } catch (error) {
    throw duplicateEmail(error, EMAIL_CANNOT_BE_USED);
  }
}

/**
 * Inside a transaction: locks the organization's row, so that changes to its users run one
 * after another (two owners demoting or removing each other at once: the second waits for
 * the first, then sees one owner left), and answers the user to change.
 */
async function findUserWithOrganizationLocked(
  em: EntityManager,
  auth: DomainContext['auth'],
  userId: string,
): Promise<User> {
  await lockRow(em, Organization, auth.organizationId);
  return findUser(em, auth, userId);
}

/** Refuses (409) when `user` is their organization's last owner; call after `findUserWithOrganizationLocked`. */
async function keepAnOwner(em: EntityManager, user: User, detail: string): Promise<void> {
  if (user.role !== 'owner') return;
  const owners = await em.count(User, { organization: user.organization.id, role: 'owner' });
  if (owners <= 1) throw conflict(detail);
}

/** PATCH /users/{userId}: role and name. A role change takes effect on the user's next request. */
export async function updateUser(
  { em, auth }: DomainContext,
  input: { userId: string; role?: UserRole | undefined; name?: string | undefined },
): Promise<OrganizationUserOutput> {
  return em.transactional(async (em) => {
    const user = await findUserWithOrganizationLocked(em, auth, input.userId);
    if (input.role !== undefined && input.role !== 'owner') {
      await keepAnOwner(em, user, 'The organization’s last owner cannot stop being one');
    }
    // An update that changes nothing answers the user as they are, and writes no event.
    if (!applyChanges(user, { role: input.role, name: input.name })) return toOrganizationUserOutput(user);
    const output = toOrganizationUserOutput(user);
    recordEvent(em, auth, 'user.updated', { aggregateId: user.id, payload: output });
    await em.flush();
    return output;
  });
}

/**
 * DELETE /users/{userId}: the user and their sessions (by foreign-key cascade) go; what they
 * made belongs to the organization and stays. The last owner cannot be removed.
 */
export async function deleteUser({ em, auth }: DomainContext, userId: string): Promise<{ success: true }> {
  return em.transactional(async (em) => {
    const user = await findUserWithOrganizationLocked(em, auth, userId);
    await keepAnOwner(em, user, 'The organization’s last owner cannot be removed');
    recordEvent(em, auth, 'user.deleted', { aggregateId: user.id, payload: toOrganizationUserOutput(user) });
    em.remove(user);
    await em.flush();
    return { success: true as const };
  });
}

/**
 * Inside a transaction: gives `user` a new password (hashed before the transaction, so no
 * connection waits on the hash) and ends their sessions but the one whose token hashes to
 * `keepTokenHash` (none for an operator's reset), with its event.
 */
export async function replacePassword(
  em: EntityManager,
  user: User,
  passwordHash: string,
  keepTokenHash: string | null,
  actor: EventActor,
): Promise<void> {
  user.passwordHash = passwordHash;
  recordEvent(em, { organizationId: user.organization.id, actor }, 'user.password_changed', {
    aggregateId: user.id,
    payload: toOrganizationUserOutput(user),
  });
  await em.flush();
  await revokeSessionsOfUser(em, user.id, keepTokenHash);
}

/** Operators (admin CLI): an organization's users, found by its name. */
export async function listOrganizationUsers(
  { em }: { em: EntityManager },
  input: { organization: string },
): Promise<{ organizationId: string; users: OrganizationUserOutput[] }> {
  const organization = await em.findOne(Organization, { name: input.organization });
  if (!organization) throw missing(`There is no organization named ${input.organization}`);
  return { organizationId: organization.id, ...(await usersOf(em, organization.id)) };
}

/**
 * Operators (admin CLI): resets a user's password, found by e-mail, and ends every session
 * of theirs. Nobody's current password is needed: the operator has the database anyway.
 */
export async function setPassword(
  { em }: { em: EntityManager },
  input: { email: string; password: string },
): Promise<{ userId: string }> {
  const passwordHash = await hashNewPassword(input.password);
  return em.transactional(async (em) => {
    const user = await em.findOne(User, { email: input.email }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!user) throw missing(`There is no user with e-mail ${input.email}`);
    await replacePassword(em, user, passwordHash, null, SYSTEM_ACTOR);
    return { userId: user.id };
  });
}
