import { z } from 'zod';
import { booleanFlag, configSection, integer } from './section.ts';

/** Where files live (local disk or an S3-compatible store) and how long the addresses it signs stay valid. */
export const storage = configSection({
  title: 'Storage',
  variables: {
    STORAGE_DRIVER: z
      .enum(['local', 's3'])
      .default('local')
      .meta({ description: '`local` (files under `DATA_DIR`, signed `/storage` addresses) or `s3`' }),
    S3_ENDPOINT: z
      .url()
      .optional()
      .meta({ description: 'Endpoint of an S3-compatible store; unset: AWS S3' }),
    S3_REGION: z.string().min(1).default('us-east-1').meta({ description: 'Region requests are signed for' }),
    S3_BUCKET: z
      .string()
      .min(3)
      .optional()
      .meta({ description: 'Bucket that holds every object (required with `STORAGE_DRIVER=s3`)' }),
    S3_ACCESS_KEY_ID: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Access key id (required with `STORAGE_DRIVER=s3`)' }),
    S3_SECRET_ACCESS_KEY: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'Secret access key (required with `STORAGE_DRIVER=s3`)' }),
    S3_FORCE_PATH_STYLE: booleanFlag.default(false).meta({
      description:
        'Name the bucket in the path (`endpoint/bucket/key`) rather than the host name, as many S3-compatible stores need',
    }),
    UPLOAD_URL_EXPIRES_SECONDS: integer(10, 7 * 24 * 3600)
      .default(900)
      .meta({ description: 'How long a signed upload address stays valid' }),
    DOWNLOAD_URL_EXPIRES_SECONDS: integer(10, 7 * 24 * 3600)
      .default(3600)
      .meta({ description: 'How long a signed download address stays valid (list again for fresh ones)' }),
  },
  check: (env, ctx) => {
    if (env.STORAGE_DRIVER === 's3') {
      for (const name of ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
        if (!env[name])
          ctx.addIssue({ code: 'custom', path: [name], message: 'is required when STORAGE_DRIVER=s3' });
      }
    }
  },
  settings: (env) => ({
    storage: {
      driver: env.STORAGE_DRIVER,
      s3: {
        endpoint: env.S3_ENDPOINT,
        region: env.S3_REGION,
        bucket: env.S3_BUCKET ?? '',
        accessKeyId: env.S3_ACCESS_KEY_ID ?? '',
        secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? '',
        forcePathStyle: env.S3_FORCE_PATH_STYLE,
      },
      uploadUrlExpiresSeconds: env.UPLOAD_URL_EXPIRES_SECONDS,
      downloadUrlExpiresSeconds: env.DOWNLOAD_URL_EXPIRES_SECONDS,
    },
  }),
});
