import { z } from 'zod';

export const voiceOutput = z
  .object({
    voice_id: z.string(),
    name: z.string(),
    category: z.string(),
    preview_url: z.string().meta({ description: 'An address that plays a short sample of the voice' }),
    labels: z.record(z.string(), z.string()),
  })
  .meta({ id: 'Voice' });

export const voiceListOutput = z.object({ voices: z.array(voiceOutput) });
