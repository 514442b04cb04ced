import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { KbDocument } from '../../entities/KbDocument.ts';
import { recordEvent, SYSTEM_ACTOR } from '../events/events.ts';
import type { Services } from '../services.ts';
import { toKbDocumentOutput } from './kb-document-output.ts';

/** Documents handled per transaction (their rows stay locked while their objects are deleted). */
const BATCH = 50;

/** Why the sweep deleted a document, in its `kb_document.deleted` event's payload. */
export const ABANDONED_UPLOAD_REASON = 'upload_expired';

/**
 * Removes knowledge-base documents whose upload was never completed: `pending` for longer than
 * KB_PENDING_TTL_HOURS (and than their upload address stays valid, so no PUT can still arrive),
 * their objects first, then their rows, each with a `kb_document.deleted` event. Rows are
 * claimed with `for update skip locked`, so instances sweeping at once never take the same
 * document; an object that cannot be deleted now keeps its row for the next sweep.
 * Each batch is a transaction of its own (a fork of `em`). Returns how many documents were removed.
 */
export async function sweepAbandonedKbUploads(em: EntityManager, services: Services): Promise<number> {
  const { settings: config, storage, logger } = services;
  const ageSeconds = Math.max(
    config.uploads.kbPendingTtlHours * 3600,
    config.storage.uploadUrlExpiresSeconds,
  );
  const cutoff = new Date(Date.now() - ageSeconds * 1000);
  let removed = 0;
  for (;;) {
    const round = await em.fork().transactional(async (em) => {
      const documents = await em.find(
        KbDocument,
        { status: 'pending', createdAt: { $lt: cutoff } },
        {
          orderBy: { createdAt: 'asc', id: 'asc' },
          limit: BATCH,
          lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
        },
      );
      let deleted = 0;
      for (const document of documents) {
        try {
          await storage.delete(document.storageKey);
        } catch (error) {
          logger.warn(
            { err: error, documentId: document.id },
            'abandoned upload kept: its object could not be deleted',
          );
          continue;
        }
        recordEvent(
          em,
          { organizationId: document.organization.id, actor: SYSTEM_ACTOR },
          'kb_document.deleted',
          {
            aggregateId: document.id,
            payload: { ...toKbDocumentOutput(document), reason: ABANDONED_UPLOAD_REASON },
          },
        );
        em.remove(document);
        deleted += 1;
      }
      return { claimed: documents.length, deleted };
    });
    removed += round.deleted;
    if (round.claimed < BATCH || round.deleted === 0) return removed;
  }
}
