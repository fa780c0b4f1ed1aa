/**
 * The drill's receivers are the tests' own: a real SMTP listener (which counts the sessions a node
 * killed in the middle of a delivery cut) and a real webhook receiver.
 */
export { startMailCatcher as startMailReceiver, type MailCatcher as MailReceiver } from '../packages/server/test/helpers/mail-catcher.ts'
export { startWebhookReceiver, type WebhookReceiver } from '../packages/server/test/helpers/webhook-receiver.ts'
