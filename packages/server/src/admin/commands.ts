import { desc, eq } from 'drizzle-orm'
import { Type, type Static } from 'typebox'
import { createOrgApiKey, revokeApiKey } from '../api-keys/api-keys.ts'
import { grantCredits, MAX_PACKS_PER_GRANT } from '../billing/credits.ts'
import { MAX_SPEND_CAP_CENTS, PERIOD_PATTERN, periodOf } from '../billing/plans.ts'
import { setSpendCap } from '../billing/spend-cap.ts'
import { usageReport } from '../billing/usage.ts'
import { createUserAsOperator, disableUser, enableUser, listUsers, promoteUser } from '../accounts/admin-users.ts'
import { resetTwoFactor } from '../accounts/two-factor/operator-reset.ts'
import { IDENTITY_CHECK_STATUSES, outboundEmails, PLANS, SCOPES, WORKSPACE_ROLES } from '../db/schema.ts'
import { invalid } from '../errors.ts'
import { compileStrict, describeValidationErrors } from '../lib/validation.ts'
import { recordIdentityCheck } from '../orgs/identity.ts'
import { MAX_DECISION_REASON_LENGTH } from '../orgs/identity-checks.schemas.ts'
import { decideAsOperator, identityCheckQueue } from '../operator/identity-checks.ts'
import { createOrg, setOrgPlan } from '../orgs/orgs.ts'
import { createTemplate } from '../templates/create-template.ts'
import { rerenderFinalPdf } from '../documents/final-pdf-job.ts'
import { runJobsAt } from './run-jobs.ts'
import type { Services } from '../services.ts'
import { addWebhookEndpoint } from '../webhooks/endpoints.ts'

const Plan = Type.Enum(PLANS)
const Id = Type.String({ minLength: 1 })

/** Every operator command, as the CLI sends it (files already read) and the admin socket receives it. */
export const AdminCommand = Type.Union([
  Type.Object({ name: Type.Literal('org.create'), orgName: Type.String(), plan: Plan }, { additionalProperties: false }),
  Type.Object({ name: Type.Literal('org.set-plan'), orgId: Id, plan: Plan }, { additionalProperties: false }),
  Type.Object(
    { name: Type.Literal('key.create'), orgId: Id, scopes: Type.Optional(Type.Array(Type.Enum(SCOPES), { minItems: 1, uniqueItems: true })) },
    { additionalProperties: false },
  ),
  Type.Object({ name: Type.Literal('key.revoke'), orgId: Id, prefix: Id }, { additionalProperties: false }),
  Type.Object(
    {
      name: Type.Literal('template.create'),
      orgId: Id,
      templateName: Type.String(),
      pdfBase64: Type.String(),
      fields: Type.Optional(Type.Unknown()),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { name: Type.Literal('mail.list'), to: Type.Optional(Type.String()), limit: Type.Integer({ minimum: 1, maximum: 1000 }) },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      name: Type.Literal('credits.grant'),
      orgId: Id,
      packs: Type.Integer({ minimum: 1, maximum: MAX_PACKS_PER_GRANT }),
      reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    {
      name: Type.Literal('org.set-spend-cap'),
      orgId: Id,
      cents: Type.Union([Type.Integer({ minimum: 0, maximum: MAX_SPEND_CAP_CENTS }), Type.Null()]),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { name: Type.Literal('usage.show'), orgId: Id, period: Type.Optional(Type.String({ pattern: PERIOD_PATTERN })) },
    { additionalProperties: false },
  ),
  Type.Object({ name: Type.Literal('webhook.add'), orgId: Id, url: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ name: Type.Literal('org.verify-identity'), orgId: Id, legalName: Type.String() }, { additionalProperties: false }),
  Type.Object({ name: Type.Literal('org.identity-checks'), status: Type.Optional(Type.Enum(IDENTITY_CHECK_STATUSES)) }, { additionalProperties: false }),
  Type.Object(
    {
      name: Type.Literal('org.decide-identity'),
      checkId: Id,
      approve: Type.Boolean(),
      legalName: Type.Optional(Type.String()),
      reason: Type.Optional(Type.String({ maxLength: MAX_DECISION_REASON_LENGTH })),
    },
    { additionalProperties: false },
  ),
  Type.Object({ name: Type.Literal('document.rerender'), documentId: Id }, { additionalProperties: false }),
  // `now` is checked by runJobsAt, whose refusal names the expected form.
  Type.Object({ name: Type.Literal('jobs.run'), now: Type.Optional(Type.String({ minLength: 1 })) }, { additionalProperties: false }),
  Type.Object(
    {
      name: Type.Literal('user.create'),
      email: Type.String({ format: 'email', maxLength: 254 }),
      userName: Type.String({ minLength: 1, maxLength: 200 }),
      password: Type.String({ minLength: 1, maxLength: 1000 }),
      operator: Type.Boolean(),
      orgId: Type.Optional(Id),
      role: Type.Optional(Type.Enum(WORKSPACE_ROLES)),
    },
    { additionalProperties: false },
  ),
  Type.Object({ name: Type.Literal('user.list') }, { additionalProperties: false }),
  Type.Object({ name: Type.Literal('user.disable'), email: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ name: Type.Literal('user.enable'), email: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ name: Type.Literal('user.promote'), email: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
  Type.Object({ name: Type.Literal('user.reset-two-factor'), email: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
])
export type AdminCommand = Static<typeof AdminCommand>

const validateCommand = compileStrict(AdminCommand)

export function parseAdminCommand(value: unknown): AdminCommand {
  if (!validateCommand(value)) throw invalid(`Invalid admin command: ${describeValidationErrors(validateCommand.errors, 'command')}`)
  return value
}

/** The CLI running on its own has no principal cache; inside a server the command clears that server's. */
export type AdminServices = Pick<Services, 'db' | 'blobs' | 'clock' | 'config' | 'pdfWork'> & Partial<Pick<Services, 'principals' | 'mail'>>

/** Runs one operator command in the process that owns the database; returns its JSON result. */
export async function executeAdminCommand(services: AdminServices, command: AdminCommand): Promise<unknown> {
  const { db } = services
  switch (command.name) {
    case 'org.create':
      return createOrg(db, { name: command.orgName, plan: command.plan })
    case 'org.set-plan': {
      const result = await setOrgPlan(db, { orgId: command.orgId, plan: command.plan })
      // Other processes learn of it by NOTIFY (milliseconds later); this one at once.
      services.principals?.clear()
      return result
    }
    case 'key.create': {
      const { api_key, scopes } = await createOrgApiKey(db, command.orgId, command.scopes)
      return { api_key, scopes }
    }
    case 'key.revoke': {
      const result = await revokeApiKey(db, { orgId: command.orgId, prefix: command.prefix }, services.clock.now())
      services.principals?.clear()
      return result
    }
    case 'document.rerender':
      return rerenderFinalPdf(db, command.documentId, services.clock.now())
    case 'jobs.run':
      return runJobsAt(services, command.now)
    case 'template.create':
      return createTemplate(services, {
        orgId: command.orgId,
        name: command.templateName,
        pdf: Buffer.from(command.pdfBase64, 'base64'),
        fields: command.fields,
      })
    case 'mail.list': {
      const rows = await db
        .select()
        .from(outboundEmails)
        .where(command.to ? eq(outboundEmails.toAddress, command.to) : undefined)
        .orderBy(desc(outboundEmails.createdAt))
        .limit(command.limit)
      return rows.map((m) => ({
        id: m.id,
        to: m.toAddress,
        subject: m.subject,
        status: m.status,
        created_at: m.createdAt.toISOString(),
        sent_at: m.sentAt?.toISOString() ?? null,
        text: m.textBody,
      }))
    }
    case 'credits.grant': {
      const { org_id, credits_granted, credit_balance } = await grantCredits(services, {
        orgId: command.orgId,
        packs: command.packs,
        source: 'operator',
        ...(command.reference ? { reference: command.reference } : {}),
      })
      return { org_id, credits_granted, credit_balance }
    }
    case 'org.set-spend-cap':
      return setSpendCap(db, command.orgId, command.cents)
    case 'org.verify-identity':
      return recordIdentityCheck(db, { orgId: command.orgId, legalName: command.legalName, now: services.clock.now() })
    case 'org.identity-checks':
      return identityCheckQueue(db, { status: command.status ?? 'pending', limit: 1000 })
    case 'org.decide-identity':
      return decideAsOperator(services, 'cli', command.checkId, {
        approve: command.approve,
        ...(command.legalName !== undefined ? { legal_name: command.legalName } : {}),
        ...(command.reason !== undefined ? { reason: command.reason } : {}),
      })
    case 'usage.show':
      return usageReport(db, command.orgId, command.period ?? periodOf(services.clock.now()))
    case 'webhook.add':
      return addWebhookEndpoint(services, { orgId: command.orgId, url: command.url })
    case 'user.create':
      if (command.role && !command.orgId) throw invalid('--role needs --org: the workspace the user joins with that role.')
      return createUserAsOperator(services, {
        email: command.email,
        name: command.userName,
        password: command.password,
        operator: command.operator,
        orgId: command.orgId,
        role: command.role,
      })
    case 'user.list':
      return listUsers(db)
    case 'user.disable':
      return disableUser(services, command.email)
    case 'user.enable':
      return enableUser(db, command.email)
    case 'user.promote':
      return promoteUser(db, command.email)
    case 'user.reset-two-factor':
      await resetTwoFactor(services, { email: command.email }, { operatorId: null, origin: null })
      return { email: command.email.trim().toLowerCase(), two_factor: false }
  }
}
