/** The password rule, as every form that chooses a password shows it (sign-up, invitation, reset, Account). */
export const PASSWORD_HINT = '8 to 128 characters. A long phrase is easiest to remember; common passwords are refused.'
