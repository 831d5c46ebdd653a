import { z } from 'zod';

/** ISO 8601 date-time as the API returns it (offset allowed). */
export const DateTime = z.iso.datetime({ offset: true });

/** International phone number: digits only, no leading `+`. */
export const PhoneDigits = z
  .string()
  .regex(/^[0-9]+$/, 'must be digits only, international format, no leading +');

/** `^https?://`, case-insensitive, as the spec states for links and images. */
export const HttpUrl = z.string().regex(/^https?:\/\//i, 'must start with http:// or https://');

export const Address = z.object({
  address1: z.string().nullable(),
  address2: z.string().nullable(),
  district: z.string().nullable(),
  city: z.string().nullable(),
  state: z.string().nullable(),
  zip: z.string().nullable(),
  country: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
});
export type Address = z.infer<typeof Address>;

/** The list envelope of every list endpoint. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    object: z.literal('list'),
    data: z.array(item),
    has_more: z.boolean(),
    next_cursor: z.string().nullable(),
  });
}
export interface ListEnvelope<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const ErrorType = z.enum([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'rate_limit_error',
  'api_error',
]);
export type ErrorType = z.infer<typeof ErrorType>;

export const ErrorEnvelope = z.object({
  error: z.object({
    type: ErrorType,
    code: z.string(),
    message: z.string(),
    param: z.string().optional(),
    request_id: z.string(),
  }),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

export const DeletionResult = z.object({
  id: z.string(),
  object: z.string(),
  deleted: z.literal(true),
});
export type DeletionResult = z.infer<typeof DeletionResult>;
