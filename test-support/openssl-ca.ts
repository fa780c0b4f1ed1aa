/**
 * The OpenSSL configuration sections tests build certificate authorities with: `req` without
 * prompts, and `root_ext` for a self-signed CA. Callers append their leaf extensions.
 */
export const OPENSSL_CA_CONFIG = `
[ req ]
distinguished_name = dn
prompt = no
[ dn ]
CN = placeholder
[ root_ext ]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
`
