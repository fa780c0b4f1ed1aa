export { isEmailAddress } from '@signet/vocabulary'

export const domainOf = (email: string): string => email.slice(email.lastIndexOf('@') + 1).toLowerCase()
