import type { IncomingMessage } from 'node:http';
import { byteSize } from '../domain/byte-size.ts';
import {
  type DomainError,
  payloadTooLarge,
  requestTimeout,
  tooManyRequests,
  unavailable,
} from '../domain/errors.ts';

/** Which bound refused a charge: the caller's share, its organization's, or the whole budget. */
export type UploadBudgetBound = 'caller' | 'organization' | 'budget';

/** Whose upload an account is: its bytes count against these two shares. */
export interface UploadOwner {
  organizationId: string;
  /** The user's or the API key's id. */
  callerId: string;
}

/**
 * Bytes held in memory by uploads in flight (read and being processed), so that concurrent
 * requests cannot grow the process without bound: all of them together at most `capacity`,
 * one organization's at most `perOrganization` and one caller's at most `perCaller` (a share
 * larger than the capacity never binds). Each upload opens an account and charges bytes as
 * they arrive, so an upload that declares ten megabytes and sends a hundred bytes holds a
 * hundred, and one tenant's uploads cannot hold what another's need. A refused charge is
 * answered by the caller (429 past a share, 503 past the capacity).
 */
export class UploadBudget {
  readonly capacity: number;
  readonly perOrganization: number;
  readonly perCaller: number;
  #used = 0;
  // Only owners holding bytes have an entry, so neither map grows with the number of tenants.
  readonly #byOrganization = new Map<string, number>();
  readonly #byCaller = new Map<string, number>();

  constructor(limits: { capacity: number; perOrganization: number; perCaller: number }) {
    this.capacity = limits.capacity;
    this.perOrganization = limits.perOrganization;
    this.perCaller = limits.perCaller;
  }

  /** Bytes held by every upload in flight. */
  get used(): number {
    return this.#used;
  }

  /** An account for one upload, holding nothing yet. */
  open(owner: UploadOwner): UploadAccount {
    return new UploadAccount(this, owner);
  }

  /** Adds `bytes` to all three counts, or to none and names the bound they would pass. */
  tryCharge(owner: UploadOwner, bytes: number): UploadBudgetBound | null {
    const caller = this.#byCaller.get(owner.callerId) ?? 0;
    const organization = this.#byOrganization.get(owner.organizationId) ?? 0;
    // The narrowest bound first: a caller past its own share is told so, not that the service is full.
    if (caller + bytes > this.perCaller) return 'caller';
    if (organization + bytes > this.perOrganization) return 'organization';
    if (this.#used + bytes > this.capacity) return 'budget';
    this.#byCaller.set(owner.callerId, caller + bytes);
    this.#byOrganization.set(owner.organizationId, organization + bytes);
    this.#used += bytes;
    return null;
  }

  /** Gives back `bytes` an account held. */
  refund(owner: UploadOwner, bytes: number): void {
    if (bytes === 0) return;
    this.#used -= bytes;
    subtract(this.#byCaller, owner.callerId, bytes);
    subtract(this.#byOrganization, owner.organizationId, bytes);
  }
}

function subtract(counts: Map<string, number>, key: string, bytes: number): void {
  const left = (counts.get(key) ?? 0) - bytes;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/** What one upload holds of the budget: charged as its bytes arrive, given back once, whole. */
export class UploadAccount {
  readonly #budget: UploadBudget;
  readonly #owner: UploadOwner;
  #held = 0;
  #released = false;

  constructor(budget: UploadBudget, owner: UploadOwner) {
    this.#budget = budget;
    this.#owner = owner;
  }

  get held(): number {
    return this.#held;
  }

  /** Holds `bytes` more, or returns the bound they would pass (and holds nothing more). */
  charge(bytes: number): UploadBudgetBound | null {
    if (this.#released) return null;
    const refused = this.#budget.tryCharge(this.#owner, bytes);
    if (!refused) this.#held += bytes;
    return refused;
  }

  /** Gives back everything held; later calls (and charges) do nothing. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#budget.refund(this.#owner, this.#held);
    this.#held = 0;
  }
}

/** How a client refused for want of memory is asked to wait. */
const BUSY_RETRY_AFTER_SECONDS = 5;
/**
 * What an upload holds before its body arrives (less when it declares less): the first chunks
 * are read at once. It also means the budget spent refuses an upload before a byte is read,
 * and bounds how many idle uploads one caller can keep open within its share.
 */
const ADVANCE_BYTES = 64 * 1024;

/** The answer to an upload whose bytes would pass a bound of the budget. */
function budgetRefusal(bound: UploadBudgetBound): DomainError {
  switch (bound) {
    case 'caller':
      return tooManyRequests(
        'Your uploads and requests in progress hold as much memory as one caller may; send this one when another has finished',
        BUSY_RETRY_AFTER_SECONDS,
      );
    case 'organization':
      return tooManyRequests(
        "Your organization's uploads and requests in progress hold as much memory as one organization may; try again shortly",
        BUSY_RETRY_AFTER_SECONDS,
      );
    case 'budget':
      return unavailable('Too many uploads are in progress; try again shortly', BUSY_RETRY_AFTER_SECONDS);
  }
}

function tooLarge(limits: BodyLimit): DomainError {
  return payloadTooLarge(
    `The request body is larger than ${limits.largestBodyText ?? byteSize(limits.largestBody)}`,
  );
}

/** Most a body may hold, and how its 413 says it (`byteSize` of it unless given). */
interface BodyLimit {
  largestBody: number;
  largestBodyText?: string;
}

/**
 * Watches one request's body as it arrives (a multipart upload, or a JSON body: see
 * `readRawBody`, rest/admission.ts), beside the parser that reads it: each chunk is charged to the caller's
 * account (none for an anonymous caller, whose bodies are small), and the body is cut off when
 * more than `largestBody` has arrived (413: the parser would only drop the rest, but reading it
 * costs time), when a charge is refused (429 past a share, 503 past the budget) or when no byte
 * has arrived for `idleTimeoutMs` (408), so that a stalled body neither holds memory nor waits
 * for the whole-request deadline. The constructor throws, having read nothing, a 413 when the
 * declared length is past `largestBody`, or the refusal of the advance (the declared length, at
 * most 64 KiB) when even that does not fit.
 */
export class UploadIntake {
  /** Rejects with the answer to give when the upload is cut off; never resolves. */
  readonly cutOff: Promise<never>;
  /** That answer, once cut off (to tell it from the parser's own errors). */
  refusal: Error | null = null;
  readonly #req: IncomingMessage;
  readonly #account: UploadAccount | null;
  readonly #limit: BodyLimit;
  readonly #idle: NodeJS.Timeout;
  #received = 0;
  #cut: (error: Error) => void = () => {};

  constructor(
    req: IncomingMessage,
    account: UploadAccount | null,
    limits: BodyLimit & { idleTimeoutMs: number },
  ) {
    this.#req = req;
    this.#account = account;
    this.#limit = limits;
    const declared = Number(req.headers['content-length']);
    if (declared > limits.largestBody) throw tooLarge(limits);
    if (account) {
      const advance = Math.min(
        Number.isSafeInteger(declared) && declared > 0 ? declared : ADVANCE_BYTES,
        ADVANCE_BYTES,
        limits.largestBody,
      );
      const refusedUpFront = account.charge(advance);
      if (refusedUpFront) throw budgetRefusal(refusedUpFront);
    }

    this.cutOff = new Promise<never>((_, reject) => {
      this.#cut = reject;
    });
    // Nobody waits on it once the body has been read: a late rejection is not an unhandled one.
    this.cutOff.catch(() => {});
    this.#idle = setTimeout(() => {
      this.#refuse(
        requestTimeout(
          `The request body stalled: no bytes arrived for ${limits.idleTimeoutMs} ms; send it again`,
        ),
      );
    }, limits.idleTimeoutMs);
    // A listener beside the parser's pipe sees every chunk too, without taking any from it.
    req.on('data', this.#onData);
    req.on('end', this.stop);
  }

  /** Ends the watch: the body has been read (or the request is over). */
  readonly stop = (): void => {
    clearTimeout(this.#idle);
    this.#req.off('data', this.#onData);
    this.#req.off('end', this.stop);
  };

  readonly #onData = (chunk: Buffer): void => {
    this.#idle.refresh();
    this.#received += chunk.length;
    if (this.#received > this.#limit.largestBody) {
      this.#refuse(tooLarge(this.#limit));
      return;
    }
    if (!this.#account) return;
    const needed = this.#received - this.#account.held;
    if (needed <= 0) return;
    const bound = this.#account.charge(needed);
    if (bound) this.#refuse(budgetRefusal(bound));
  };

  #refuse(error: Error): void {
    this.stop();
    this.refusal = error;
    this.#cut(error);
  }
}
