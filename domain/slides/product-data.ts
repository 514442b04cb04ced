import { z } from 'zod';
import { text } from '../text.ts';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export const TIERS = ['good', 'better', 'best'] as const;

/**
 * A price with at most two decimals, judged on the number's shortest decimal form (`String`):
 * 19.99 passes, 19.999 and 1e-7 do not. Not `multipleOf: 0.01`, which standard JSON Schema
 * validators compute in floating point (19.99 / 0.01 = 1998.9999999999998) and so refuse
 * 19.99 (docs/decisions/047-money.md).
 */
const TWO_DECIMALS = /^\d+(?:\.\d{1,2})?$/;
export function hasAtMostTwoDecimals(price: number): boolean {
  return TWO_DECIMALS.test(String(price));
}

export const pricingTierSchema = z
  .strictObject({
    name: text().trim().min(1).max(100),
    price: z
      .number()
      .min(0)
      .max(1e12)
      .meta({ description: 'In the currency’s major unit, with at most two decimals (19.99)' }),
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

/**
 * Product data as a request may give it: the prices' two decimals checked too. An input rule
 * (what is stored passed it), so the answers' schema and its compiled check stay plain numbers.
 */
export const productDataInputSchema = productDataSchema.superRefine((data, ctx) => {
  for (const name of TIERS) {
    const price = data[name]?.price;
    if (typeof price === 'number' && !hasAtMostTwoDecimals(price)) {
      ctx.addIssue({ code: 'custom', path: [name, 'price'], message: 'must have at most two decimals' });
    }
  }
});
