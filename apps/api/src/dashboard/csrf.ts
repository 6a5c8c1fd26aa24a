import { randomBytes, timingSafeEqual } from 'node:crypto';
import { ForbiddenException } from '@nestjs/common';
import type { Request, Response } from 'express';

/** The dashboard's CSRF cookie: one random token per browser session, never readable by scripts. */
export const CSRF_COOKIE = 'vigil_admin_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = 'csrf';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

function cookieToken(request: Request): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === CSRF_COOKIE) {
      const token = value.join('=');
      return TOKEN.test(token) ? token : undefined;
    }
  }
  return undefined;
}

/**
 * The session's token, set as a SameSite=Strict, HttpOnly cookie scoped to /admin on first sight;
 * the pages carry it in each form's hidden field (docs/operations.md, "The task dashboard").
 */
export function sessionCsrfToken(request: Request, response: Response): string {
  const existing = cookieToken(request);
  if (existing) return existing;
  const token = randomBytes(32).toString('base64url');
  response.cookie(CSRF_COOKIE, token, {
    path: '/admin',
    httpOnly: true,
    sameSite: 'strict',
    secure: request.secure,
  });
  return token;
}

/**
 * A state-changing admin request must present the cookie's token again, in the form field or the
 * header: a forged cross-site form carries the cookie (if at all) but cannot know the token.
 */
export function requireCsrf(request: Request, presented: string | undefined): void {
  const expected = cookieToken(request);
  const header = request.headers[CSRF_HEADER];
  const given = presented ?? (typeof header === 'string' ? header : undefined);
  const ok =
    expected !== undefined &&
    given !== undefined &&
    given.length === expected.length &&
    timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  if (!ok)
    throw new ForbiddenException('missing or wrong CSRF token: reload the dashboard page and try again');
}
