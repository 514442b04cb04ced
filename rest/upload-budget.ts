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
