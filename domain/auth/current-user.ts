import type { UserRole } from '../../entities/User.ts';
import type { Auth } from '../context.ts';

/** The answer of login and of `GET /auth/me`. */
export interface CurrentUser {
  user: { id: string; email: string; name: string; role: UserRole };
  organization: { id: string; name: string };
}

/** Built from the caller alone: the statement that authenticated it read everything shown. */
export function toCurrentUser(auth: Auth): CurrentUser {
  return {
    user: { id: auth.userId, email: auth.email, name: auth.name, role: auth.role },
    organization: { id: auth.organizationId, name: auth.organizationName },
  };
}
