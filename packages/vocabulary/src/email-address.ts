/**
 * The spec's e-mail rule: a local part without a leading, trailing or doubled dot, and a
 * domain of hostname labels ending in a TLD of two or more letters. The server enforces it;
 * the dashboard and the CLI check it first, so a bad address is refused with the row or
 * argument it came from, before anything is sent.
 */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/
const DOMAIN = /^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/

export function isEmailAddress(value: string): boolean {
  if (value.length > 254) return false
  const at = value.lastIndexOf('@')
  if (at < 1) return false
  const local = value.slice(0, at)
  return local.length <= 64 && LOCAL_PART.test(local) && DOMAIN.test(value.slice(at + 1))
}
