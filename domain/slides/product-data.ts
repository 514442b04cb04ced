import { z } from 'zod';
import { text } from '../text.ts';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export const TIERS = ['good', 'better', 'best'] as const;

export const pricingTierSchema = z
  .strictObject({
    name: text().trim().min(1).max(100),
    price: z.number().min(0).max(1e12).multipleOf(0.01, 'must have at most two decimals'),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')
      .refine((code) => CURRENCIES.has(code), 'is not an ISO 4217 currency code'),
    billingPeriod: z.enum(['one_time', 'month', 'year']),
    features: z.array(text().trim().min(1).max(500)).max(50),
    highlighted: z.boolean().optional(),
    ctaText: text().trim().min(1).max(100).optional(),
  })
  .meta({ id: 'PricingTier' });

/** The good/better/best pricing of a product_pricing_v1 slide. */
export const productDataSchema = z
  .strictObject({
    good: pricingTierSchema,
    better: pricingTierSchema,
    best: pricingTierSchema,
    subtitle: text().max(500).optional(),
    brandLogo: text().max(2048).optional(),
    disclaimer: text().max(5000).optional(),
    defaultSelectedTier: z.enum(TIERS).default('good'),
  })
  .meta({ id: 'ProductData' });

export type ProductData = z.infer<typeof productDataSchema>;
