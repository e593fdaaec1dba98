/** What other features may use of this one. */
export { usersModule } from './module.ts';
export { User } from './schemas.ts';
export { toUser } from './service.ts';
