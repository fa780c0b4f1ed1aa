import { describe, expect, it } from 'vitest'
import { allocate, refusalFor, usageChannelOf, type MeterState } from '../../src/billing/metering.ts'

const org = (state: Partial<MeterState>): MeterState => ({
  orgId: 'o1',
  plan: 'free',
  creditBalance: 0,
  spendCapCents: null,
  includedUsed: 0,
  billedCents: 0,
  ...state,
})
const send = (wanted: number, channel: 'rest' | 'mcp' | 'bulk' = 'rest') => ({ kind: 'send' as const, channel, wanted })

describe('metering quotes', () => {
  it('pays with the month’s allowance first, then credits, and stops when both are spent (Free)', () => {
    expect(allocate(org({ includedUsed: 1, creditBalance: 2 }), send(5))).toEqual(['included', 'included', 'credit', 'credit'])
  })

  it('bills beyond the allowance up to the spend cap (Pro)', () => {
    // 100 included are used; $1.00 cap with $0.60 billed leaves two units at $0.20.
    expect(allocate(org({ plan: 'pro', includedUsed: 100, spendCapCents: 100, billedCents: 60 }), send(3))).toEqual(['billable', 'billable'])
    expect(allocate(org({ plan: 'pro', includedUsed: 100 }), send(3))).toEqual(['billable', 'billable', 'billable'])
  })

  it('leaves REST sends and seals unmetered on Business, but meters agent-tool sends', () => {
    expect(allocate(org({ plan: 'business', includedUsed: 100, spendCapCents: 0 }), send(2))).toEqual(['unlimited', 'unlimited'])
    expect(allocate(org({ plan: 'business', includedUsed: 100, spendCapCents: 0 }), send(2, 'mcp'))).toEqual([])
  })

  it('allows no bulk send below Team, and says so with upgrade: true', () => {
    const state = org({ plan: 'pro' })
    expect(allocate(state, send(1, 'bulk'))).toEqual([])
    expect(refusalFor(state, { channel: 'bulk' })).toMatchObject({
      code: 'payment_required',
      message: 'Bulk send is available on the Team plan and higher.',
      extra: { upgrade: true },
    })
  })

  it('refuses a Free org out of credits with a link to buy more', () => {
    const refusal = refusalFor(org({ includedUsed: 3 }), { channel: 'rest' })
    expect(refusal.code).toBe('payment_required')
    expect(refusal.message).toBe(
      'This org has used the 3 documents the Free plan includes this month and has no credits left. Buy a pack of 25 credits (they never expire) or upgrade the plan.',
    )
    expect(refusal.extra).toHaveProperty('upgrade_url')
  })

  it('names the reached spend cap', () => {
    expect(refusalFor(org({ plan: 'pro', spendCapCents: 1000 }), { channel: 'rest' })).toMatchObject({
      code: 'spend_cap_reached',
      message: "This org's monthly spend cap of $10.00 is reached. Raise it (PUT /api/v1/billing/spend-cap) to send more this month.",
    })
  })

  it('meters agent-tool calls as mcp and every other door as rest', () => {
    expect([usageChannelOf({ channel: 'mcp' }), usageChannelOf({ channel: 'dashboard' }), usageChannelOf({ channel: 'cli' })]).toEqual(['mcp', 'rest', 'rest'])
  })
})
