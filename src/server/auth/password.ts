// Password hashing is better-auth's (scrypt, ≈150 ms a hash on purpose). Everything that hashes or checks a
// password — sign-in, the admin's create and reset, the start-up seed — goes through `passwords`, so tests
// can plug a cheap hash once instead of paying 150 ms per user.
import { hashPassword, verifyPassword } from "better-auth/crypto";

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

export const MIN_PASSWORD_LENGTH = 12;

const scrypt: PasswordHasher = {
  hash: (password) => hashPassword(password),
  verify: (hash, password) => verifyPassword({ hash, password }),
};

const holder = globalThis as unknown as { packratPasswordHasher?: PasswordHasher };

export const passwords: PasswordHasher = {
  hash: (password) => (holder.packratPasswordHasher ?? scrypt).hash(password),
  verify: (hash, password) => (holder.packratPasswordHasher ?? scrypt).verify(hash, password),
};

/** Tests only: a cheaper hasher (undefined restores scrypt). */
export function usePasswordHasherForTests(hasher: PasswordHasher | undefined): void {
  holder.packratPasswordHasher = hasher;
}
